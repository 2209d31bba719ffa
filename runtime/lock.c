// SPDX-License-Identifier: GPL-2.0
/*
 * lock.c - the runtime's one lock, and its verbosity: the two things
 * every layer may use, so they sit below all of them.
 *
 * The mutex serialises init, every change of site states, the loading of
 * objects and the writing of files (control.c, objects.c, output.c);
 * the tracing threads never take it.  It is held around fork()
 * (control.c registers the pthread_atfork handlers), so a child starts
 * with no thread inside it and resets it (lpt_lock_reset).
 *
 * lpt_verbose is LPTRACE_VERBOSE (env.c), set once at init.
 */
#include <pthread.h>

#include "lock.h"

int lpt_verbose;

static pthread_mutex_t lpt_mutex = PTHREAD_MUTEX_INITIALIZER;

void lpt_lock(void)
{
	pthread_mutex_lock(&lpt_mutex);
}

void lpt_unlock(void)
{
	pthread_mutex_unlock(&lpt_mutex);
}

/* In a forked child, the only thread: no one else can hold or want it. */
void lpt_lock_reset(void)
{
	pthread_mutex_init(&lpt_mutex, NULL);
}
