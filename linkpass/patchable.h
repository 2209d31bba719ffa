/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --patchable-entries: the sites come from the compiler's
 * __patchable_function_entries list, not from mcount calls.
 */
#ifndef LINKPASS_PATCHABLE_H
#define LINKPASS_PATCHABLE_H

#include "site.h"

#define PATCHABLE_SECTION "__patchable_function_entries"

/* How far before an entry its M nops may start (M <= 64 instructions). */
#define PAD_PRE_ENTRY_MAX 256

/* The listed addresses as candidates; 1: an object without a list. */
int patchable_read(struct image *im, struct site **out, size_t *n);

/* A run of @n pad nops in @sec from @addr: true, its end in *@end. */
bool pad_run(const struct image *im, const struct section *sec,
	     uint64_t addr, unsigned int n, uint64_t *end);
/*
 * The live function that the nops from @addr, which no function
 * covers, run into; or NULL.  @hint as for funcs_lookup().
 */
const struct func *pad_before_entry(const struct image *im,
				    const struct funcs *f,
				    const struct section *sec, uint64_t addr,
				    long *hint);
/* Where @fn's pad after the entry begins: past its landing pad, if any. */
uint64_t pad_entry(const struct image *im, const struct section *sec,
		   const struct func *fn);
/* Does @addr start @fn's pad of o->pad_n, o->pad_m nops? */
bool pad_fits(const struct image *im, const struct scan_opts *o,
	      const struct section *sec, const struct func *fn, uint64_t addr);
/* The counts of --stats for a list of @n entries. */
void patchable_stats(struct scan_stats *st, size_t n);
/* The listed address @addr of @sec as a candidate site, in @s. */
void listed_site(struct site *s, const struct section *sec, uint64_t addr);

#endif
