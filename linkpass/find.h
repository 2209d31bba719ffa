/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sites of an image, from where the options say they come: the
 * calls to the mcount symbol in the kept relocations (scan_image()),
 * or with --patchable-entries the compiler's
 * __patchable_function_entries list (scan_pads()).  check --byte-audit
 * has a third way (audit.c).
 */
#ifndef LINKPASS_FIND_H
#define LINKPASS_FIND_H

#include "scan.h"

/* As scan_image() or scan_pads(), chosen once from @o. */
int find_sites(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r);

#endif
