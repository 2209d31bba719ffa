/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scan's symbol pass: the mcount symbols, the anchors' fallback
 * names and the table's bounds (fastsyms.c's: its entry set too).
 */
#ifndef LINKPASS_SYMBOLS_H
#define LINKPASS_SYMBOLS_H

#include "anchor.h"
#include "compiler.h"
#include "image.h"
#include "mcount.h"
#include "site.h"
#include "table_read.h"

struct sym_pass {
	uint8_t *is_mcount;		/* by symbol index */
	struct anchor_cands *anchors;	/* or NULL */
	struct table_bounds *bounds;	/* or NULL */
	size_t nlocal_funcs;
};

/*
 * The pass's work on symbol @i, @s (decoded, or read in place); @named:
 * its name may be one the pass looks for (mcount, anchor, bound).
 */
static __always_inline void
sym_pass_one(const struct scan_opts *o, struct sym_pass *p,
	     const struct symbol *s, size_t i, bool named)
{
	if (__builtin_expect(named, 0)) {
		p->is_mcount[i] = mcount_kind(o->mcount_syms, s->name);
		if (p->anchors && s->shndx != SHN_UNDEF)
			anchor_cands_named(p->anchors, s, (uint32_t)i);
		if (p->bounds && s->shndx != SHN_UNDEF)
			table_bounds_match(p->bounds, s);
	}
}

/* The pass over the decoded symbols (image_symbols()). */
void run_symbol_pass(struct image *im, const struct scan_opts *o,
		     struct sym_pass *p);

/*
 * fastsyms.c: the same pass over the symbols in place (the quick
 * scan's), filling the entry set @e too
 */
struct entry_set;
int fast_symbol_pass(struct image *im, const struct scan_opts *o,
		     struct sym_pass *p, struct entry_set *e);

#endif
