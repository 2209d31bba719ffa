/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge.h - every thread's events in time order (dump --text, replay):
 * one cursor per thread through the file, merged by a heap on their next
 * event's time.  A thread's cursor starts when the merge reaches its
 * first event's time (trace_open found it) and ends after its last
 * record: memory is the threads running at once, not the events.
 */
#ifndef LPTRACE_MERGE_H
#define LPTRACE_MERGE_H

#include "tracefile.h"

struct mcursor;

struct merge {
	struct trace *t;
	struct mcursor **by_thread;	/* as t->threads; NULL when not live */
	struct mcursor **heap;
	size_t nheap;
	size_t *pending;		/* thread indices by first event's time */
	size_t npending, next;
};

int merge_init(struct merge *m, struct trace *t);
void merge_free(struct merge *m);
/* 1 with the next event in time, 0 at the end, -1 (said). */
int merge_next(struct merge *m, struct lpt_event *e);
/* The next event of thread @tid, or NULL; merge_take consumes it. */
const struct lpt_event *merge_peek(struct merge *m, int32_t tid);
int merge_take(struct merge *m, int32_t tid, struct lpt_event *e);

#endif
