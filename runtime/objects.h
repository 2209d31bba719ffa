/* SPDX-License-Identifier: GPL-2.0 */
/*
 * objects.h - the shared libraries with a table (see objects.c).
 * lpt_objects_pinned() runs @fn while the dynamic loader can neither
 * load nor unload an object; lpt_objects_refresh() (called inside) adds
 * the tables of objects loaded since the last call and marks the
 * unloaded ones gone.
 */
#ifndef LPT_OBJECTS_H
#define LPT_OBJECTS_H

#include "lptrace.h"

#pragma GCC visibility push(hidden)

int lpt_objects_pinned(int (*fn)(void *), void *arg);
int lpt_objects_refresh(struct lpt_stats *st);

#pragma GCC visibility pop

#endif /* LPT_OBJECTS_H */
