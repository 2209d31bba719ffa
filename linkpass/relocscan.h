/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The relocation workers (relocscan.c): every reference to an mcount
 * symbol in the kept relocation sections of code, read in place.  Big
 * images are read in parallel, one run of relocations per thread, each
 * appending to its own array: nothing shared, nothing locked.
 */
#ifndef LINKPASS_RELOCSCAN_H
#define LINKPASS_RELOCSCAN_H

#include "site.h"

/*
 * The candidate sites of @im: each reference to a symbol that
 * @is_mcount marks (by symbol index: enum mcount_kind), with the
 * verdict SITE_KEPT for a call and DROP_NOT_CALL for any other, into
 * *@cand (*@n of them; *@sorted when they came in (section, address)
 * order).  The counts, threads and time go into @st.  -1 after an
 * error line.
 */
int relocscan_sites(struct image *im, const struct scan_opts *o,
		    const uint8_t *is_mcount, struct scan_stats *st,
		    struct site **cand, size_t *n, bool *sorted);

#endif
