/* SPDX-License-Identifier: GPL-2.0 */
/* lock.h - the one lock and the verbosity (see lock.c): the bottom layer. */
#ifndef LPT_LOCK_H
#define LPT_LOCK_H

#pragma GCC visibility push(hidden)

/* LPTRACE_VERBOSE: counts and timings on stderr. */
extern int lpt_verbose;

void lpt_lock(void);
void lpt_unlock(void);
void lpt_lock_reset(void);

#pragma GCC visibility pop

#endif /* LPT_LOCK_H */
