// SPDX-License-Identifier: GPL-2.0
/*
 * The quick scan's symbol pass (fastscan.c): the symbols read in place,
 * on two threads for a big image, the live function entries put into
 * the entry set (entries.h) as they go.  symbols.c's sym_pass_one()
 * does the rest of each symbol's work.
 */
#include <stddef.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "entries.h"
#include "jobs.h"
#include "inplace.h"
#include "namefilter.h"
#include "symbols.h"
#include "util.h"

/*
 * The symbols come in no address order (globals follow all locals), so
 * setting a function's entry bit is a cache miss more often than not:
 * most of the symbol pass's time.  Symbol i + PREFETCH_AHEAD's word is
 * asked for while symbol i is handled, when the maps are too big to
 * stay in cache (reading the symbol ahead costs instructions).
 */
#define PREFETCH_AHEAD 16

/*
 * always_inline: GCC counts a function that only prefetches as free of
 * side effects and drops the call.
 */
static __always_inline void
prefetch_entry(const struct image *im, const struct entry_set *e, size_t i)
{
	struct symbol ahead;

	/* a local label's word is never set: no need (Elf64_Sym only) */
	if (im->symin.is64 &&
	    ELF64_ST_TYPE(im->symin.syms[i * sizeof(Elf64_Sym) +
					 offsetof(Elf64_Sym, st_info)]) !=
	    STT_FUNC)
		return;
	sym_decode_raw(im->symin.is64, im->symin.syms, i, &ahead);
	entries_prefetch(e, ahead.shndx, ahead.value);
}

/* The names the pass looks for: mcount symbols 1, anchors 2, bounds 4. */
static void sym_pass_names(const struct image *im, const struct scan_opts *o,
			   const struct sym_pass *p, struct namefilter *nf)
{
	size_t j;

	namefilter_init(nf, im->symin.strs, im->symin.nstrs);
	for (j = 0; o->mcount_syms[j]; j++)
		namefilter_add(nf, o->mcount_syms[j], 1);
	for (j = 0; p->anchors && j < ANCHOR_NFALLBACK; j++)
		namefilter_add(nf, anchor_fallback_names[j], 2);
	for (j = 0; p->bounds && j < p->bounds->n; j++)
		namefilter_add(nf, p->bounds->names[j], 4);
}

/* st_info of a local symbol that is no function: a label, to the pass. */
static inline bool label_info(uint8_t info)
{
	return ELF64_ST_BIND(info) == STB_LOCAL &&
	       ELF64_ST_TYPE(info) != STT_FUNC &&
	       ELF64_ST_TYPE(info) != STT_GNU_IFUNC;
}

/*
 * Is symbol @i, read in place (Elf64_Sym), a local one that is no
 * function and has none of the names @nf wants?  Then the pass has
 * nothing to do with it: a local symbol is no anchor and has no entry
 * bit.  Most symbols of some images are such labels (riscv64's ".L<n>":
 * 110,000 of 155,000).  -1 where image_sym_get() would fail.
 */
static __always_inline int local_label(const struct image *im,
				       const struct namefilter *nf, size_t i)
{
	const uint8_t *e = im->symin.syms + i * sizeof(Elf64_Sym);
	uint8_t info = e[offsetof(Elf64_Sym, st_info)];
	uint16_t shndx;
	uint32_t name;

	if (!label_info(info))
		return 0;
	memcpy(&name, e + offsetof(Elf64_Sym, st_name), sizeof(name));
	memcpy(&shndx, e + offsetof(Elf64_Sym, st_shndx), sizeof(shndx));
	/* what image_sym_get() checks */
	if (name >= im->symin.nstrs ||
	    (shndx >= im->nsecs &&
	     (shndx < SHN_LORESERVE || shndx == SHN_XINDEX)))
		return -1;
	return !namefilter_test(nf, im->symin.strs + name);
}

/* symbol_pass() over symbols [@from, @to). */
static __always_inline int
symbol_range(bool raw, const struct image *im,
	     const struct scan_opts *o, struct sym_pass *p,
	     struct entry_set *e, const struct namefilter *nf, size_t from,
	     size_t to)
{
	bool ahead = raw && e->big;
	struct symbol local;
	size_t i;
	int skip;

	for (i = from; i < to; i++) {
		const struct symbol *s = &local;

		if (ahead && i + PREFETCH_AHEAD < to)
			prefetch_entry(im, e, i + PREFETCH_AHEAD);
		if (raw && im->symin.is64) {
			skip = local_label(im, nf, i);
			if (skip < 0)
				return -1;
			if (skip)
				continue;
		}
		if (!raw)
			s = &im->syms[i];
		else if (!image_sym_get(im, i, &local))
			return -1;
		sym_pass_one(o, p, s, i, namefilter_test(nf, s->name));
		p->nlocal_funcs += s->type == STT_FUNC &&
				   s->bind == STB_LOCAL;
		if (s->shndx == SHN_UNDEF || s->shndx >= im->nsecs)
			continue;
		if ((s->type == STT_FUNC || s->type == STT_GNU_IFUNC) &&
		    s->name[0])
			entries_add(e, s->shndx, s->value, s->size);
	}
	return 0;
}

static __always_inline int
symbol_pass(bool raw, const struct image *im, const struct scan_opts *o,
	    struct sym_pass *p, struct entry_set *e)
{
	struct namefilter nf;

	sym_pass_names(im, o, p, &nf);
	return symbol_range(raw, im, o, p, e, &nf, 1, im->nsyms);
}

/*
 * One half of a parallel symbol pass: symbols [from, to), with its own
 * anchor names, bounds and counts, merged by symbol_pass_parallel().
 */
struct sym_half {
	const struct image *im;
	const struct scan_opts *o;
	const struct namefilter *nf;
	struct sym_pass p;
	struct anchor_cands anchors;
	struct table_bounds bounds;
	/* the upper half's own entry maps, made on its thread: a twin of */
	const struct entry_set *twin_of;
	struct entry_set own;
	struct entry_set *e;
	size_t from, to;
	int ret;
};

static void *sym_half_run(void *arg)
{
	struct sym_half *h = arg;

	if (h->twin_of) {
		entries_twin(&h->own, h->twin_of);
		h->e = &h->own;
	}
	h->ret = symbol_range(true, h->im, h->o, &h->p, h->e, h->nf,
			      h->from, h->to);
	return NULL;
}

/* Of each fallback name, the lower half's symbol if it has one. */
static void merge_anchors(struct anchor_cands *lo,
			  const struct anchor_cands *hi)
{
	size_t i;

	for (i = 0; i < ANCHOR_NFALLBACK; i++)
		if (!lo->named[i])
			lo->named[i] = hi->named[i];
}

/* The same for the table's bounds: the first symbol of each name. */
static void merge_bounds(struct table_bounds *lo, const struct table_bounds *hi)
{
	size_t j;

	for (j = 0; j < lo->n; j++)
		if (!lo->found[j] && hi->found[j]) {
			lo->syms[j] = hi->syms[j];
			lo->found[j] = true;
		}
}

/*
 * Below this many symbols one thread makes the pass faster than two.
 * (About 2 ms of pass: the thread costs a small fraction of that.)
 */
#define PARALLEL_MIN_SYMS 100000
/* One symbol in this many is looked at to guess how many are labels. */
#define LABEL_SAMPLE 64

/*
 * About how many of the symbols the pass does more than glance at: all
 * but the local labels local_label() skips (riscv64's kernel: 110,000
 * of 155,000), guessed from every LABEL_SAMPLE-th symbol's st_info.
 */
static size_t symbols_to_read(const struct image *im)
{
	const uint8_t *info;
	size_t i, labels = 0, seen = 0;

	if (!im->symin.is64)
		return im->nsyms;
	for (i = 1; i < im->nsyms; i += LABEL_SAMPLE, seen++) {
		info = im->symin.syms + i * sizeof(Elf64_Sym) +
		       offsetof(Elf64_Sym, st_info);
		labels += label_info(*info);
	}
	return seen ? im->nsyms - im->nsyms / seen * labels : im->nsyms;
}

static bool symbol_pass_threads(const struct image *im,
				const struct scan_opts *o)
{
	if (o->threads == 1 || im->nsyms < 4)
		return false;
	if (o->threads > 1)
		return true;
	return im->nsyms >= PARALLEL_MIN_SYMS &&
	       symbols_to_read(im) >= PARALLEL_MIN_SYMS &&
	       sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/*
 * symbol_pass(true, ...) on two threads, each over half the symbols.
 * The halves mark different is_mcount bytes and keep their own anchor
 * names, bounds, counts and entry maps, merged after.  (Sharing
 * the maps, each bit set with an atomic OR, made the pass no faster
 * than one thread: docs/benchmarks.md, section 5.4h.)  Returns as
 * symbol_pass().
 */
static int symbol_pass_parallel(const struct image *im,
				const struct scan_opts *o, struct sym_pass *p,
				struct entry_set *e)
{
	struct namefilter nf;
	struct sym_half h[2];
	int i, ret = 0;

	sym_pass_names(im, o, p, &nf);
	for (i = 0; i < 2; i++) {
		memset(&h[i], 0, sizeof(h[i]));
		h[i].im = im;
		h[i].o = o;
		h[i].nf = &nf;
		h[i].p = *p;
		h[i].p.nlocal_funcs = 0;
		h[i].e = e;
	}
	h[0].from = 1;
	h[0].to = 1 + (im->nsyms - 1) / 2;
	h[1].from = h[0].to;
	h[1].to = im->nsyms;
	/* the upper half's own anchor names and bounds, merged below */
	if (p->anchors)
		h[1].p.anchors = &h[1].anchors;
	if (p->bounds) {
		h[1].bounds = *p->bounds;
		memset(h[1].bounds.found, 0, sizeof(h[1].bounds.found));
		h[1].p.bounds = &h[1].bounds;
	}
	h[1].twin_of = e;
	run_jobs(h, 2, sizeof(h[0]), sym_half_run);
	if (h[0].ret < 0 || h[1].ret < 0)
		ret = -1;	/* the caller decodes and starts again */
	p->nlocal_funcs = h[0].p.nlocal_funcs + h[1].p.nlocal_funcs;
	if (!ret && p->anchors)
		merge_anchors(p->anchors, &h[1].anchors);
	if (!ret && p->bounds)
		merge_bounds(p->bounds, &h[1].bounds);
	if (!ret)
		entries_merge(e, &h[1].own);
	if (p->anchors)
		anchor_cands_free(&h[1].anchors);
	entries_free(&h[1].own);
	return ret;
}

int fast_symbol_pass(struct image *im, const struct scan_opts *o,
		     struct sym_pass *p, struct entry_set *e)
{
	struct symbol z;
	int ret = 1;

	if (!im->syms_decoded && symbol_pass_threads(im, o))
		ret = symbol_pass_parallel(im, o, p, e);
	if (ret > 0 && !im->syms_decoded)
		ret = symbol_pass(true, im, o, p, e);
	if (ret == 0) {
		/* the null symbol counts as image_symbols() counts it */
		if (im->nsyms) {
			image_sym_get(im, 0, &z);
			p->nlocal_funcs += z.type == STT_FUNC &&
					   z.bind == STB_LOCAL;
		}
		im->nlocal_funcs = p->nlocal_funcs;
		return 0;
	}
	if (image_symbols(im) < 0)
		return -1;
	/* start again from nothing */
	memset(p->is_mcount, 0, im->nsyms ? im->nsyms : 1);
	p->nlocal_funcs = 0;
	if (p->bounds)
		memset(p->bounds->found, 0, sizeof(p->bounds->found));
	entries_clear(e);
	if (p->anchors)
		anchor_cands_free(p->anchors);
	symbol_pass(false, im, o, p, e);
	return 0;
}
