/* SPDX-License-Identifier: GPL-2.0 */
/* maps.h - executable mappings of this process (see maps.c). */
#ifndef LPT_MAPS_H
#define LPT_MAPS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct lpt_map {
	uintptr_t start, end;	/* [start, end) */
	int prot;		/* PROT_* as mapped */
};

struct lpt_maps {
	struct lpt_map *v;	/* sorted by address */
	size_t n;
};

int lpt_maps_load(struct lpt_maps *m);
const struct lpt_map *lpt_maps_find(const struct lpt_maps *m, uintptr_t addr);
void lpt_maps_free(struct lpt_maps *m);

#pragma GCC visibility pop

#endif /* LPT_MAPS_H */
