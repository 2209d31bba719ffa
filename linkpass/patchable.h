/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --patchable-entries: the sites of a linked image come from the
 * compiler's __patchable_function_entries list (-fpatchable-function-
 * entry) instead of calls to an mcount symbol; the same verdicts, the
 * same table.
 */
#ifndef LINKPASS_PATCHABLE_H
#define LINKPASS_PATCHABLE_H

#include "scan.h"

#define PATCHABLE_SECTION "__patchable_function_entries"

/* scan_image() for o->patchable: fills @r the same way. */
int patchable_scan(struct image *im, const struct scan_opts *o,
		   struct scan_result *r);

#endif
