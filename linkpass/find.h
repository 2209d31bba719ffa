/* SPDX-License-Identifier: GPL-2.0 */
/* Where the sites come from: mcount calls or the patchable list. */
#ifndef LINKPASS_FIND_H
#define LINKPASS_FIND_H

#include "scan.h"

/* scan_image(), or scan_pads() with --patchable-entries. */
int find_sites(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r);

#endif
