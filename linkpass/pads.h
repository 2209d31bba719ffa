/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Patchable pads at function entries (pads.c): the quick judgement of
 * the compiler's __patchable_function_entries list by the entry set,
 * for a linked image whose scan wants no drop reasons; patchable.c
 * judges the list with every reason, and whatever this cannot tell.
 */
#ifndef LINKPASS_PADS_H
#define LINKPASS_PADS_H

#include "entries.h"
#include "site.h"

/*
 * --patchable-entries on a linked image, without drop reasons: the
 * listed addresses (patchable_candidates()) judged by the entry set
 * (pad_at()), as scan_pads() judges them with the sorted index.
 * Returns 1, with nothing reported, where that takes the index (see
 * pad_at()), or a kept entry starts no pad of the given geometry, or
 * entries lie in no function of an image without local function
 * symbols: scan_pads() then judges each, and says why.  Else 0 with
 * r->kept filled, or -1 after an error line.  @traced as
 * traced_sections() gives it; @e marks the covered bytes too.
 */
int pad_sites(struct image *im, const struct scan_opts *o,
	      const uint8_t *traced, const struct entry_set *e,
	      struct scan_result *r);

/* pad_run() walking back from @end: the run's start in *@start. */
bool pad_run_back(const struct image *im, const struct section *sec,
		  uint64_t end, unsigned int n, uint64_t *start);

#endif
