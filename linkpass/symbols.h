/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scan's symbol pass (symbols.c): one pass over the symbols, read
 * in place, that marks the mcount symbols and, when asked, fills the
 * entry set, gathers the anchor candidates and finds the table's
 * bounds, so that the symbol table, the biggest input after the
 * relocations, is read once.
 */
#ifndef LINKPASS_SYMBOLS_H
#define LINKPASS_SYMBOLS_H

#include "image.h"
#include "site.h"

struct anchor_cands;
struct entry_set;
struct table_bounds;

/* What the symbol pass finds; see symbol_pass(). */
struct sym_pass {
	uint8_t *is_mcount;		/* by symbol index */
	struct entry_set *e;		/* or NULL */
	struct anchor_cands *anchors;	/* or NULL */
	struct table_bounds *bounds;	/* or NULL */
	size_t nlocal_funcs;
};

/*
 * The symbol pass, on the symbols in place when they are not decoded
 * yet; an unusual one (SHN_XINDEX, or a bad one to report) makes it
 * decode them all and start again.  Sets im->nlocal_funcs.  -1 when
 * the symbols cannot be decoded (reported).
 */
int run_symbol_pass(struct image *im, const struct scan_opts *o,
		    struct sym_pass *p);

#endif
