/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Never drop a live site silently.  A call to the mcount symbol that
 * lies in no function symbol is dropped as an overridden weak function's
 * dead body.  A static function whose local symbol was discarded before
 * the link (strip -x on its object) looks the same, but it is reached:
 * something calls, jumps to or takes the address of its entry, where
 * nothing reaches a dead body.  reach_check() refuses an image where one
 * of those sites is reached.  The rule and its evidence: docs/design.md,
 * "Discarded local symbols".
 */
#ifndef LINKPASS_REACH_H
#define LINKPASS_REACH_H

#include "scan.h"

/*
 * For the scan without reasons: note the entry-style call @s, dropped
 * for lying at no function entry, as one reach_check() looks at.
 */
void reach_note(struct scan_result *r, const struct site *s);

/*
 * In a linked image, is the entry of a call dropped for lying in no
 * function symbol reached from outside its own body?  Returns 0 when
 * none is (or there is nothing to look at: no cost then), or -1 after
 * one error line naming the first such entry and the count.
 */
int reach_check(struct image *im, const struct scan_result *r);

#endif
