/* SPDX-License-Identifier: GPL-2.0 */
/* sigmask.h - SIGTRAP is never blocked in the program (see sigmask.c). */
#ifndef LPT_SIGMASK_H
#define LPT_SIGMASK_H

#include <signal.h>

#pragma GCC visibility push(hidden)

/* The real sigaction, below the program's view of it (trap.c). */
int lpt_real_sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);
/* @set without SIGTRAP, in @copy (NULL when @set is). */
const sigset_t *lpt_unblockable(const sigset_t *set, sigset_t *copy);

#pragma GCC visibility pop

#endif /* LPT_SIGMASK_H */
