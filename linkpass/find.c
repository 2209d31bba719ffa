// SPDX-License-Identifier: GPL-2.0
/* Where the sites come from: mcount calls or the patchable list. */
#include "find.h"

int find_sites(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r)
{
	if (o->patchable)
		return scan_pads(im, o, want, r);
	return scan_image(im, o, want, r);
}
