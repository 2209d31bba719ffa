/* SPDX-License-Identifier: GPL-2.0 */
/*
 * graph.h - function-graph mode, entry and exit through the return
 * address (see graph.c), and lpt_record, the trampolines' way into the
 * recorder in either mode.
 */
#ifndef LPT_GRAPH_H
#define LPT_GRAPH_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* lpt_graph_fast: entry.S does the common entry and exit itself. */
extern int lpt_graph_on;
extern uint8_t lpt_graph_fast;
/* @ret: entry.S's lpt_graph_ret, given by the caller (see graph.c). */
void lpt_graph_setup(unsigned int max_depth, uint64_t min_ticks,
		     uintptr_t ret);
/* entry.S's trampolines call lpt_record, which calls one of these two. */
void lpt_record(uintptr_t func, uintptr_t *slot);
void lpt_graph_entry(uintptr_t func, uintptr_t *slot) __attribute__((noinline));
uintptr_t lpt_graph_exit(uintptr_t *slot);
/* An unwinder is about to walk the stack; a handler caught (unwind.c). */
void lpt_graph_unwind_begin(void);
void lpt_graph_catch(uintptr_t cfa);

#pragma GCC visibility pop

#endif /* LPT_GRAPH_H */
