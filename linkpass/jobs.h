/* SPDX-License-Identifier: GPL-2.0 */
/* Big independent work in parallel (jobs.c). */
#ifndef LINKPASS_JOBS_H
#define LINKPASS_JOBS_H

#include <stddef.h>

/*
 * Run @fn on each of the @n jobs at @jobs, @size bytes apart, on
 * threads, and return when all are done.  @fn must touch only its own
 * job and what nobody writes while the jobs run.
 */
void run_jobs(void *jobs, size_t n, size_t size, void *(*fn)(void *));

#endif
