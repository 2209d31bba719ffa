/* SPDX-License-Identifier: GPL-2.0 */
/* entry.h - the code enabled sites call (see entry.S). */
#ifndef LPT_ENTRY_H
#define LPT_ENTRY_H

#pragma GCC visibility push(hidden)

/* What enabled sites call, one per site length. */
void lpt_tramp5(void);
void lpt_tramp6(void);
/* Where a function hijacked in graph mode returns (graph.c). */
void lpt_graph_ret(void);

#pragma GCC visibility pop

#endif /* LPT_ENTRY_H */
