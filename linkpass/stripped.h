/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Never drop a live site silently.  A call to the mcount symbol that
 * lies in no function symbol is dropped as an overridden weak function's
 * dead body.  A static function whose local symbol was discarded before
 * the link (strip -x on its object) looks the same, but it is reached:
 * something calls, jumps to or takes the address of its entry, where
 * nothing reaches a dead body.  The check refuses an image where one
 * of those sites is reached.  The rule and its evidence: docs/design.md,
 * "Discarded local symbols".
 */
#ifndef LINKPASS_STRIPPED_H
#define LINKPASS_STRIPPED_H

#include "site.h"

struct stripped_check;

/*
 * The stripped-objects check.  In a linked image, is the entry of a
 * call dropped for lying in no function symbol reached from outside its
 * own body?  stripped_start()
 * gathers the candidates from @r (which it does not keep) and looks
 * for references to them: on a thread of its own when @threads allows
 * (as scan_opts.threads: 0 when the image is big enough and there are
 * two CPUs, 1 never, more always), so that the caller can write the
 * table meanwhile.  Until stripped_finish() or stripped_cancel() the
 * caller may read the image and decode its symbols, but must not close
 * it.
 * *@job is NULL when there is nothing to look at (no cost then).
 * Returns -1 after an error line (a relocation section it cannot read).
 *
 * stripped_finish() waits for the search and returns 0 when no
 * candidate is reached, or -1 after one error line naming the first
 * that is and the count; it notes the check's time in @st and frees
 * @sc.  stripped_cancel() waits and frees, deciding nothing.
 */
int stripped_start(struct image *im, const struct scan_result *r, int threads,
		   struct stripped_check **job);
int stripped_finish(struct stripped_check *sc, struct scan_stats *st);
void stripped_cancel(struct stripped_check *sc);

/*
 * locals.c: refuse an image without local symbols that needs them,
 * then stripped_start()
 */
int stripped_begin(struct image *im, struct scan_result *r, int threads,
		   struct stripped_check **job);

#endif
