// SPDX-License-Identifier: GPL-2.0
/*
 * run_jobs(), the parallel passes: all jobs but the
 * first on threads of their own, the first (and any whose thread cannot
 * start) on this one, then join them all.  No lock: each job touches
 * only its own state.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "jobs.h"
#include "util.h"

void run_jobs(void *jobs, size_t n, size_t size, void *(*fn)(void *))
{
	pthread_t *tid = xcalloc(n ? n : 1, sizeof(*tid));
	bool *started = xcalloc(n ? n : 1, sizeof(*started));
	char *job = jobs;
	size_t i;

	for (i = 1; i < n; i++)
		started[i] = !pthread_create(&tid[i], NULL, fn, job + i * size);
	for (i = 0; i < n; i++)
		if (!started[i])
			fn(job + i * size);
	for (i = 1; i < n; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
	free(started);
	free(tid);
}
