/* SPDX-License-Identifier: GPL-2.0 */
/*
 * env.h - the LPTRACE* environment (see env.c): numbers and words,
 * range-checked.
 */
#ifndef LPT_ENV_H
#define LPT_ENV_H

#pragma GCC visibility push(hidden)

/* Events kept per thread: LPTRACE_BUFSIZE's default and range. */
#define LPT_BUFSIZE_DEFAULT	(1ul << 18)
#define LPT_BUFSIZE_MAX		(1ul << 28)	/* 8 GiB of address space */
/* Graph mode's filters: LPTRACE_DEPTH and LPTRACE_MIN_NS ranges. */
#define LPT_DEPTH_MAX		4096
#define LPT_MIN_NS_MAX		1000000000000ul	/* 1000 s */

/*
 * A bad value gets a message naming the variable and the accepted
 * range, and the default is used.
 */
unsigned long lpt_env_ulong(const char *name, unsigned long def,
			    unsigned long min, unsigned long max);
int lpt_env_word(const char *name, const char *const *words, int def);

#pragma GCC visibility pop

#endif /* LPT_ENV_H */
