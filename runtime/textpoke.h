/* SPDX-License-Identifier: GPL-2.0 */
/* textpoke.h - rewrite live code safely: the int3 protocol (see textpoke.c). */
#ifndef LPT_TEXTPOKE_H
#define LPT_TEXTPOKE_H

#include <stddef.h>

#include "sites.h"

#pragma GCC visibility push(hidden)

int lpt_sync_init(void);
const char *lpt_sync_name(void);
int lpt_poke_sites(struct lpt_site **v, size_t n, enum lpt_state to,
		   size_t *skipped);

#pragma GCC visibility pop

#endif /* LPT_TEXTPOKE_H */
