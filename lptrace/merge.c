// SPDX-License-Identifier: GPL-2.0
/* merge.c - see merge.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

#define MERGE_WINDOW	(32 * 1024)	/* bytes each live cursor reads at a time */

struct mcursor {
	struct cursor c;
	struct lpt_event head;		/* its next event */
	size_t hpos;			/* its place in the heap */
	size_t ti;			/* its thread's index */
};

static int before(const struct mcursor *a, const struct mcursor *b)
{
	return a->head.tsc < b->head.tsc;
}

static void heap_set(struct merge *m, size_t i, struct mcursor *c)
{
	m->heap[i] = c;
	c->hpos = i;
}

static void sift_up(struct merge *m, size_t i)
{
	struct mcursor *c = m->heap[i];

	while (i && before(c, m->heap[(i - 1) / 2])) {
		heap_set(m, i, m->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(m, i, c);
}

static void sift_down(struct merge *m, size_t i)
{
	struct mcursor *c = m->heap[i];

	for (;;) {
		size_t l = 2 * i + 1, k = l;

		if (l >= m->nheap)
			break;
		if (l + 1 < m->nheap && before(m->heap[l + 1], m->heap[l]))
			k = l + 1;
		if (!before(m->heap[k], c))
			break;
		heap_set(m, i, m->heap[k]);
		i = k;
	}
	heap_set(m, i, c);
}

static int cmp_first(const void *a, const void *b, void *threads)
{
	const struct trace_thread *x = (struct trace_thread *)threads +
				       *(const size_t *)a;
	const struct trace_thread *y = (struct trace_thread *)threads +
				       *(const size_t *)b;

	return x->first_tsc < y->first_tsc ? -1 : x->first_tsc > y->first_tsc;
}

int merge_init(struct merge *m, struct trace *t)
{
	size_t i, n = t->nthreads ? t->nthreads : 1;

	memset(m, 0, sizeof(*m));
	m->t = t;
	m->by_thread = calloc(n, sizeof(*m->by_thread));
	m->heap = calloc(n, sizeof(*m->heap));
	m->pending = calloc(n, sizeof(*m->pending));
	if (!m->by_thread || !m->heap || !m->pending) {
		merge_free(m);
		cli_error("%s: %s", t->path, strerror(ENOMEM));
		return -1;
	}
	for (i = 0; i < t->nthreads; i++)
		if (t->threads[i].events)
			m->pending[m->npending++] = i;
	qsort_r(m->pending, m->npending, sizeof(*m->pending), cmp_first,
		t->threads);
	return 0;
}

static void drop(struct merge *m, struct mcursor *c)
{
	m->by_thread[c->ti] = NULL;
	cursor_free(&c->c);
	free(c);
}

void merge_free(struct merge *m)
{
	size_t i;

	for (i = 0; m->heap && i < m->nheap; i++)
		drop(m, m->heap[i]);
	free(m->by_thread);
	free(m->heap);
	free(m->pending);
	memset(m, 0, sizeof(*m));
}

/* Remove heap entry @i (its cursor ended). */
static void heap_remove(struct merge *m, size_t i)
{
	struct mcursor *last = m->heap[--m->nheap];

	if (i == m->nheap)
		return;
	heap_set(m, i, last);
	sift_down(m, i);
	sift_up(m, last->hpos);
}

/* Start the cursor of the next pending thread. */
static int start_next(struct merge *m)
{
	size_t ti = m->pending[m->next++];
	struct mcursor *c = calloc(1, sizeof(*c));
	int r;

	if (!c) {
		cli_error("%s: %s", m->t->path, strerror(ENOMEM));
		return -1;
	}
	c->ti = ti;
	if (cursor_init(&c->c, m->t, m->t->threads[ti].tid, MERGE_WINDOW)) {
		free(c);
		return -1;
	}
	r = cursor_next(&c->c, &c->head);
	if (r <= 0) {
		cursor_free(&c->c);
		free(c);
		return r;
	}
	m->by_thread[ti] = c;
	heap_set(m, m->nheap++, c);
	sift_up(m, c->hpos);
	return 0;
}

/* Move @c past its head: the next event, or out of the heap. */
static int advance(struct merge *m, struct mcursor *c)
{
	int r = cursor_next(&c->c, &c->head);

	if (r < 0)
		return -1;
	if (!r) {
		heap_remove(m, c->hpos);
		drop(m, c);
		return 0;
	}
	sift_down(m, c->hpos);
	sift_up(m, c->hpos);
	return 0;
}

int merge_next(struct merge *m, struct lpt_event *e)
{
	struct mcursor *c;

	/* A thread starts once no live one has an earlier event. */
	while (m->next < m->npending &&
	       (!m->nheap || m->t->threads[m->pending[m->next]].first_tsc <=
			     m->heap[0]->head.tsc))
		if (start_next(m))
			return -1;
	if (!m->nheap)
		return 0;
	c = m->heap[0];
	*e = c->head;
	return advance(m, c) ? -1 : 1;
}

const struct lpt_event *merge_peek(struct merge *m, int32_t tid)
{
	struct trace_thread *th = trace_thread(m->t, tid);
	struct mcursor *c = th ? m->by_thread[th - m->t->threads] : NULL;

	return c ? &c->head : NULL;
}

int merge_take(struct merge *m, int32_t tid, struct lpt_event *e)
{
	struct trace_thread *th = trace_thread(m->t, tid);
	struct mcursor *c = th ? m->by_thread[th - m->t->threads] : NULL;

	if (!c)
		return 0;
	*e = c->head;
	return advance(m, c) ? -1 : 1;
}
