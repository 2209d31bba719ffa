// SPDX-License-Identifier: GPL-2.0
/* Where the sites come from: mcount calls or the patchable list. */
#include "find.h"

#include "patchable.h"

int find_sites(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r)
{
	int ret;

	/*
	 * -fpatchable-function-entry: the compiler listed the sites.  The
	 * scan judges them by its entry set where that can tell, as it does
	 * mcount calls; patchable_scan() explains every drop, and decides
	 * what the entry set cannot.
	 */
	if (o->patchable) {
		ret = scan_image(im, o, want, r);
		return ret <= 0 ? ret : patchable_scan(im, o, r);
	}
	return scan_image(im, o, want, r);
}
