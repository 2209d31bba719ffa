/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Anchors: the symbols table entries are relative to.  Each entry is
 * "anchor + offset" with a relocation, so the linker computes the final
 * address and relocatable (KASLR) kernels keep working.  By default
 * each section's sites use the lowest global symbol of that section:
 * the offset then stays valid when the table object shifts whole output
 * sections, and the build converges in fewer links.
 */
#ifndef LINKPASS_ANCHOR_H
#define LINKPASS_ANCHOR_H

#include "image.h"
#include "scan.h"

struct anchors {
	const struct symbol **by_shndx;	/* anchor for each section */
	const struct symbol **list;	/* the distinct anchors used */
	size_t n;
};

/* @forced: one symbol for every entry, or NULL / "auto". */
int anchors_choose(struct image *im, const char *forced,
		   const struct site *sites, size_t nsites, struct anchors *a);
void anchors_free(struct anchors *a);

#endif
