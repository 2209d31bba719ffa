/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A site, and what finding the sites of an image takes and gives
 * (scan.h).  Every candidate gets a verdict; a dropped one is kept too,
 * with its reason, so that check can explain stale entries.
 */
#ifndef LINKPASS_SITE_H
#define LINKPASS_SITE_H

#include "funcs.h"
#include "image.h"
#include "policy.h"

enum site_verdict {
	SITE_KEPT,
	DROP_NOT_CALL,		/* data or address reference to mcount */
	DROP_UNTRACED,		/* in a section the policy does not trace */
	DROP_DEAD_BODY,		/* an overridden weak function's body */
	DROP_NO_FUNC,		/* other code that no function covers */
	DROP_NOT_ENTRY,		/* not at the function's entry */
	DROP_DUPLICATE,		/* a second relocation for one site */
	NR_VERDICTS,
};

/*
 * A table entry or a site as check and nop compare them: in a linked
 * image an address (shndx 0), in an object a section and an offset.
 */
struct place {
	uint64_t off;
	uint32_t shndx;
	uint8_t form;		/* a site's enum call_form */
};

/* qsort() order of places: by section, then offset. */
int cmp_place(const void *a, const void *b);

struct site {
	uint64_t addr;		/* the call's start (object: section offset) */
	uint32_t shndx;		/* section holding it */
	uint8_t form;		/* enum call_form; CALL_NONE if not a call */
	uint8_t verdict;	/* enum site_verdict */
	uint8_t entry_style;	/* 1: __fentry__ (at entry); 0: mcount */
	uint8_t pad;
};

/* Site order: by (section, address), or by address then section. */
static inline bool site_before_sec(const struct site *x, const struct site *y)
{
	return x->shndx != y->shndx ? x->shndx < y->shndx : x->addr < y->addr;
}

static inline bool site_before_addr(const struct site *x, const struct site *y)
{
	return x->addr != y->addr ? x->addr < y->addr : x->shndx < y->shndx;
}

struct scan_opts {
	const char **mcount_syms;	/* NULL-terminated */
	struct policy policy;
	int threads;			/* 0: one per online CPU, max 8 */
	bool patchable;			/* --patchable-entries */
	/* its N,M: N nops, M before the entry (pad_n 0: not given) */
	unsigned int pad_n, pad_m;
};

struct scan_stats {
	size_t relsecs;		/* relocation sections read */
	size_t relocs;		/* relocations seen */
	size_t refs;		/* relocations naming an mcount symbol */
	size_t calls;		/* of those, call instructions */
	size_t verdicts[NR_VERDICTS];
	int threads;
	uint64_t ns_symbols;	/* function index */
	uint64_t ns_relocs;	/* relocation scan */
	uint64_t ns_filter;	/* filtering and sorting */
	uint64_t ns_stripped;	/* the stripped-objects check (stripped.c) */
	bool stripped_threaded;	/* it ran on a thread of its own */
};

struct anchor_cands;
struct stripped_check;

struct scan_result {
	struct site *kept;	/* sorted by address, no duplicates */
	size_t nkept;
	struct site *dropped;	/* sorted by address */
	size_t ndropped;
	struct funcs funcs;	/* empty unless explained */
	bool explained;		/* the scan ran with reasons on */
	/* without reasons: entry-style calls at no entry (stripped.c) */
	struct site *unentered;
	size_t nunentered, capunentered;
	struct anchor_cands *anchors;	/* with scan_want.anchors */
	struct scan_stats stats;
	struct stripped_check *stripped; /* scan_want.stripped_later's */
};

void scan_opts_init(struct scan_opts *o);
void scan_opts_free(struct scan_opts *o);

#endif
