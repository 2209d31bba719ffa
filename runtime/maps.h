/* SPDX-License-Identifier: GPL-2.0 */
/* maps.h - executable mappings of this process (see maps.c). */
#ifndef LP_MAPS_H
#define LP_MAPS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct lp_map {
	uintptr_t start, end;	/* [start, end) */
	int prot;		/* PROT_* as mapped */
};

struct lp_maps {
	struct lp_map *v;	/* sorted by address */
	size_t n;
};

int lp_maps_load(struct lp_maps *m);
const struct lp_map *lp_maps_find(const struct lp_maps *m, uintptr_t addr);
void lp_maps_free(struct lp_maps *m);

#pragma GCC visibility pop

#endif /* LP_MAPS_H */
