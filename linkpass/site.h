/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A site, and what finding the sites of an image takes and gives.  The
 * sites come from three places, each filling a struct scan_result the
 * same way (find.h picks one): the calls to the mcount symbol that the
 * kept relocations show (scan.c), the compiler's own list of
 * -fpatchable-function-entry pads (patchable.c), and, without
 * relocations, the bytes at each function's entry (audit.c).  Every
 * candidate gets a verdict; what is dropped is kept too, with its
 * reason, so --stats can count it and check can explain stale entries.
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
	DROP_DEAD_BODY,		/* a function body without a symbol:
				 * an overridden weak function
				 */
	DROP_NO_FUNC,		/* other code that no function covers */
	DROP_NOT_ENTRY,		/* not at the function's entry */
	DROP_DUPLICATE,		/* a second relocation for one site */
	NR_VERDICTS,
};

/* Long form for check and sites output, short form for --stats. */
extern const char *const verdict_name[NR_VERDICTS];
extern const char *const verdict_short[NR_VERDICTS];

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
	uint64_t addr;		/* start of the call instruction; in an
				 * object file, its section offset
				 */
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
	/*
	 * Sites are the entries of the compiler's
	 * __patchable_function_entries list, not mcount calls
	 * (patchable.c).
	 */
	bool patchable;
	/*
	 * With patchable, the pad's geometry when given
	 * (--patchable-entries=N,M: N nops, M of them before the entry;
	 * pad_n 0: not given).  Each kept entry must then lie where it
	 * puts the pad's first nop, and the byte-level audit looks for
	 * exactly such pads.
	 */
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
	/*
	 * Without reasons: the entry-style calls in traced sections at
	 * no function entry, their reason not worked out (stripped.c).
	 */
	struct site *unentered;
	size_t nunentered, capunentered;
	/* with scan_want.anchors: the anchor candidates (anchor.h) */
	struct anchor_cands *anchors;
	struct scan_stats stats;
	struct stripped_check *stripped; /* with scan_want.stripped_later, or NULL */
};

void scan_opts_init(struct scan_opts *o);
void scan_opts_free(struct scan_opts *o);

/* A dropped record at @addr, for explaining stale table entries. */
const struct site *scan_find_dropped(const struct scan_result *r,
				     uint64_t addr);

#endif
