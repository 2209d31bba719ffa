/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole-image scans (site.h has what they give): the mcount calls
 * in the relocations kept by -q, or the patchable-entry list.
 */
#ifndef LINKPASS_SCAN_H
#define LINKPASS_SCAN_H

#include "site.h"

struct table_bounds;

/* What a scan must do besides finding the kept sites. */
struct scan_want {
	/* judge every site with the function index (else: hooks.h) */
	bool reasons;
	bool anchors;			/* also r->anchors */
	struct table_bounds *bounds;	/* also the table's bounds, or NULL */
	/* return with the stripped-objects check still running */
	bool stripped_later;
};

/* The scan of commands that explain what they find (sites, obj...). */
extern const struct scan_want scan_explained;

/* After scan_want.stripped_later: the stripped-objects check's verdict. */
int scan_finish(struct scan_result *r);
void scan_result_free(struct scan_result *r);
/*
 * The calls to the mcount symbols, or with --patchable-entries the
 * listed pads: 0, or -1 after an error line.
 */
int find_sites(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r);

#endif
