// SPDX-License-Identifier: GPL-2.0
/* find_sites(): the scan a command gets, quick or exact. */
#include "scan.h"

int find_sites(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r)
{
	int ret = 1;

	/* without drop reasons, the quick scan where it can tell */
	if (!want->reasons)
		ret = fast_scan(im, o, want, r);
	return ret <= 0 ? ret : exact_scan(im, o, want, r);
}
