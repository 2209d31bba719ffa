/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole-image scans (site.h has what they give), one per source
 * of sites, which find_sites() chooses: every call to the mcount
 * symbol in the relocations kept by -q, or the compiler's
 * __patchable_function_entries list; of those, the ones at the entry
 * of a live function in a traced section.
 */
#ifndef LINKPASS_SCAN_H
#define LINKPASS_SCAN_H

#include "site.h"

struct table_bounds;

/* What a scan must do besides finding the kept sites: its caller's say. */
struct scan_want {
	/*
	 * Judge every dropped site (r->dropped, the drop counts) and keep
	 * the sorted function index (r->funcs).  Off, the scan decides
	 * the kept sites alone, by a hash set of function entries, and
	 * r->dropped stays empty: the same table for a fraction of the
	 * work.
	 */
	bool reasons;
	/* Also find each section's anchor candidate (r->anchors). */
	bool anchors;
	/* Also look up the table's bound symbols (check), or NULL. */
	struct table_bounds *bounds;
	/*
	 * Leave the stripped-objects check (stripped.h) running, on a thread
	 * of its own where that pays: the caller goes on (writes the
	 * table) and must call scan_finish() before it trusts the result.
	 */
	bool stripped_later;
};

/* The scan of commands that explain what they find (sites, obj...). */
extern const struct scan_want scan_explained;

/* The calls to the mcount symbols: 0, or -1 after an error line. */
int scan_image(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r);
/*
 * --patchable-entries: the listed pads, as scan_image() gives its
 * calls.  The entry set judges what it can; patchable_scan() the
 * rest, and every entry when @want asks for drop reasons.
 */
int scan_pads(struct image *im, const struct scan_opts *o,
	      const struct scan_want *want, struct scan_result *r);
/*
 * After scan_image() with scan_want.stripped_later: wait for the
 * stripped-objects check; 0 when the result stands, or -1 after its
 * error line.  Without stripped_later, 0 at once.
 */
int scan_finish(struct scan_result *r);
/* Any scan_result, whoever filled it. */
void scan_result_free(struct scan_result *r);

#endif
