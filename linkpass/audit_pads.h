/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The byte audit's pads (audit_pads.c): which function opens with the
 * pad of -fpatchable-function-entry=N,M, and which N,M a table's own
 * entries show.
 */
#ifndef LINKPASS_AUDIT_PADS_H
#define LINKPASS_AUDIT_PADS_H

#include "audit_patched.h"
#include "funcs.h"

/* N nops, M of them before the function, each @width bytes (0: any). */
struct pad_geom {
	unsigned int n, m, width;
};

/*
 * Does @fn open with the pad @g describes: M nops ending at its start
 * and N - M after its landing pad, each of the pad's width, none of
 * them code the kernel patches for another reason (@p)?  Then true,
 * and the pad's first nop, the table's entry, in *@site.
 */
bool audit_pad_site(struct image *im, const struct pad_geom *g,
		    const struct patched *p, const struct func *fn,
		    uint64_t *site);

/*
 * The geometry the @n entries @v show (0 entries skipped): for each
 * that starts a run of @width-byte nops into a function of @f, M is
 * the nops before the function's start and N - M the nops after its
 * landing pad.  The pair most entries show goes to *@g, with *@agree
 * entries showing it out of *@seen that showed one; false when none.
 */
bool audit_pad_geometry(struct image *im, const struct funcs *f,
			const uint64_t *v, size_t n, unsigned int width,
			struct pad_geom *g, size_t *agree, size_t *seen);

#endif
