/* SPDX-License-Identifier: GPL-2.0 */
/*
 * control.h - what the API does (see control.c); its entry points
 * lpt_init, lpt_enable and lpt_disable are in autostart.c, lpt_stats
 * here (declared in lptrace.h).
 */
#ifndef LPT_CONTROL_H
#define LPT_CONTROL_H

#include <stdint.h>

#include "lptrace.h"
#include "sites.h"

#pragma GCC visibility push(hidden)

/* lpt_init: @fentry is the program's __fentry__ (autostart.c). */
int lpt_control_init(uintptr_t fentry);
/* lpt_enable, lpt_disable: after a successful init. */
int lpt_control_set(enum lpt_state to, const char *glob);
/* LPTRACE_FILTER: enabled at start and in every object loaded later. */
void lpt_control_filter(const char *glob);

#pragma GCC visibility pop

#endif /* LPT_CONTROL_H */
