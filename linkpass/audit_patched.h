/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code the kernel patches for reasons of its own (audit_patched.c):
 * static keys and alternatives.  The byte audit takes no nop recorded
 * there for an ftrace pad or NOP'd site.
 */
#ifndef LINKPASS_AUDIT_PATCHED_H
#define LINKPASS_AUDIT_PATCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "image.h"

/* One patched range of code, [start, end). */
struct patched_range {
	uint64_t start, end;
};

struct patched {
	struct patched_range *v;	/* sorted by start */
	size_t n;
	size_t jumps, alts;		/* records read of each kind */
};

/*
 * Read the image's __jump_table and alternative records, from their
 * bytes (no relocations needed).  An image without them gives an
 * empty set.  -1 after an error line (a record table that is cut).
 */
int patched_read(struct image *im, struct patched *p);
/* Does [@addr, @addr + @len) overlap a patched range? */
bool patched_covers(const struct patched *p, uint64_t addr, uint64_t len);
void patched_free(struct patched *p);

#endif
