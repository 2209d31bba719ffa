/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole-image scans (site.h has what they give): the mcount calls
 * in the relocations kept by -q, or the patchable-entry list.
 */
#ifndef LINKPASS_SCAN_H
#define LINKPASS_SCAN_H

#include "site.h"

struct anchors;
struct options;
struct table_bounds;

/* What a scan must do besides finding the kept sites. */
struct scan_want {
	/* judge every site with the function index (else: fastscan.c) */
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
 * listed pads: 0, or -1 after an error line (find.c).  The quick scan
 * where it can tell, else the exact one.
 */
int find_sites(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r);
/* scan.c: the exact scan, every site judged with its reason */
int exact_scan(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r);
/*
 * fastscan.c: the quick scan, without drop reasons: the symbols read in
 * place, the entries of the functions as bitmaps (entries.h) in place
 * of the sorted index, threads for a big image.  0 or -1 as
 * find_sites(); 1, with @r empty, where it cannot tell and the exact
 * scan must.
 */
int fast_scan(struct image *im, const struct scan_opts *o,
	      const struct scan_want *want, struct scan_result *r);

/* scan_empty.c: scan's error naming --allow-empty for no site, or 0 */
int scan_empty_table(struct image *im, const struct options *o,
		     const struct scan_result *r);
/*
 * scan_stats.c: scan --stats; @ns: the times of its start, the image
 * opened, the write's start and the end
 */
void scan_print_stats(struct image *im, const struct options *o,
		      struct scan_result *r, const struct anchors *a,
		      const uint64_t *ns);

#endif
