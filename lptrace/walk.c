// SPDX-License-Identifier: GPL-2.0
/*
 * walk.c - per-thread call stacks and the read-time filters, as uftrace
 * has them:
 *   -F GLOB   only calls at or under a matching function (-D counts from it)
 *   -N GLOB   not a matching function, nor anything under it
 *   -D N      calls less than N deep
 *   -t MIN    calls that took at least MIN (decided at their exit)
 *   --tid     only these threads
 * Depths place each event: an entry at depth d ends every open call at
 * d or deeper, an exit every open call deeper than it; those calls lost
 * their exit (dropped, filtered at record time, or still running).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"

#define MATCH_F		1u
#define MATCH_N		2u
#define STACK_MAX	(LPT_PK_DEPTH_OPEN + 1)	/* depths 0..255 */

struct fcache {
	uint64_t func;		/* 0: empty */
	unsigned int match;
};

int walk_error(const struct trace *t, int err)
{
	if (err)
		cli_error("%s: %s", t->path, strerror(-err));
	return err;
}

int walk_init(struct walk *w, struct trace *t, const struct options *o,
	      const struct walk_ops *ops, void *priv)
{
	size_t i, k;

	memset(w, 0, sizeof(*w));
	w->t = t;
	w->o = o;
	w->ops = ops;
	w->priv = priv;
	w->threads = calloc(t->nthreads ? t->nthreads : 1, sizeof(*w->threads));
	if (!w->threads)
		return -ENOMEM;
	for (i = 0; i < t->nthreads; i++) {
		struct wthread *wt = &w->threads[i];

		wt->th = &t->threads[i];
		wt->selected = !o->tids.n;
		for (k = 0; k < o->tids.n; k++)
			if (atol(o->tids.v[k]) == wt->th->tid)
				wt->selected = true;
	}
	return 0;
}

void walk_free(struct walk *w)
{
	size_t i;

	for (i = 0; w->threads && i < w->t->nthreads; i++)
		free(w->threads[i].stack);
	free(w->threads);
	free(w->fc);
	memset(w, 0, sizeof(*w));
}

struct wthread *walk_thread(struct walk *w, int32_t tid)
{
	struct trace_thread *th = trace_thread(w->t, tid);

	return th ? &w->threads[th - w->t->threads] : NULL;
}

static bool any_match(const struct strlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!fnmatch(l->v[i], name, 0))
			return true;
	return false;
}

/* Which of -F, -N a function matches; each function is named once. */
static unsigned int matches(struct walk *w, uint64_t func)
{
	const struct options *o = w->o;
	struct fcache *c;
	size_t i;

	if (!o->filter.n && !o->notrace.n)
		return 0;
	if (2 * (w->fc_n + 1) > w->fc_cap) {
		struct fcache *old = w->fc;
		size_t ocap = w->fc_cap;

		w->fc_cap = ocap ? 2 * ocap : 1024;
		w->fc = calloc(w->fc_cap, sizeof(*w->fc));
		if (!w->fc)
			return 0;	/* seen as no match; said by walk_event */
		w->fc_n = 0;
		for (i = 0; i < ocap; i++)
			if (old[i].func) {
				size_t j = (old[i].func * 0x9e3779b97f4a7c15ull >> 20) &
					   (w->fc_cap - 1);

				while (w->fc[j].func)
					j = (j + 1) & (w->fc_cap - 1);
				w->fc[j] = old[i];
				w->fc_n++;
			}
		free(old);
	}
	i = (func * 0x9e3779b97f4a7c15ull >> 20) & (w->fc_cap - 1);
	for (c = &w->fc[i]; c->func; c = &w->fc[i]) {
		if (c->func == func)
			return c->match;
		i = (i + 1) & (w->fc_cap - 1);
	}
	{
		char buf[32];
		const char *name = trace_func_name(w->t, func, buf, sizeof(buf));

		c->func = func;
		c->match = (any_match(&o->filter, name) ? MATCH_F : 0) |
			   (any_match(&o->notrace, name) ? MATCH_N : 0);
		w->fc_n++;
	}
	return c->match;
}

/* Pop the open calls at @depth or deeper (@or_equal) or deeper only. */
static int pop_lost(struct walk *w, struct wthread *t, unsigned int depth,
		    bool or_equal)
{
	int err;

	while (t->n && (t->stack[t->n - 1].depth > depth ||
			(or_equal && t->stack[t->n - 1].depth == depth))) {
		struct frame *f = &t->stack[--t->n];

		if (f->shown && w->ops->lost) {
			err = w->ops->lost(w, t, f);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Push a call entered at @e's depth, its filters decided. */
static struct frame *push(struct walk *w, struct wthread *t,
			  const struct lpt_event *e, uint64_t tsc)
{
	const struct options *o = w->o;
	struct frame *p = t->n ? &t->stack[t->n - 1] : NULL, *f;
	unsigned int m = matches(w, e->func);

	if (!t->stack) {
		t->stack = malloc(STACK_MAX * sizeof(*t->stack));
		if (!t->stack)
			return NULL;
	}
	f = &t->stack[t->n++];
	memset(f, 0, sizeof(*f));
	f->func = e->func;
	f->tsc = tsc;
	f->arg = e->kind == LPT_EV_ENTRY ? e->arg : 0;
	f->depth = e->depth;
	f->node = WALK_NONE;
	f->notrace = (p && p->notrace) || (m & MATCH_N);
	if (!o->filter.n) {
		f->in_filter = true;
	} else if (p && p->in_filter) {
		f->in_filter = true;
		f->fbase = p->fbase;
	} else if (m & MATCH_F) {
		f->in_filter = true;
		f->fbase = e->depth;
	}
	f->shown = f->in_filter && !f->notrace &&
		   (!o->depth || e->depth - f->fbase < o->depth);
	f->sdepth = p ? p->sdepth + p->shown : 0;
	return f;
}

static int walk_entry(struct walk *w, struct wthread *t,
		      const struct lpt_event *e)
{
	struct frame *f;
	int err = pop_lost(w, t, e->depth, true);

	if (err)
		return err;
	f = push(w, t, e, e->tsc);
	if (!f)
		return -ENOMEM;
	f->entered = true;
	if (f->shown && w->ops->entry)
		return w->ops->entry(w, t, f, e);
	return 0;
}

static int walk_exit(struct walk *w, struct wthread *t,
		     const struct lpt_event *e)
{
	uint64_t ns = trace_ns(w->t, e->tsc) - trace_ns(w->t, e->arg);
	struct frame *f;
	int err = pop_lost(w, t, e->depth, false);

	if (err)
		return err;
	f = t->n ? &t->stack[t->n - 1] : NULL;
	if (f && f->depth == e->depth && f->func != e->func) {
		err = pop_lost(w, t, e->depth, true);
		if (err)
			return err;
		f = NULL;
	} else if (f && f->depth != e->depth) {
		f = NULL;
	}
	if (!f) {		/* its entry was lost: the call from its exit */
		f = push(w, t, e, e->arg);
		if (!f)
			return -ENOMEM;
	}
	if (f->shown && ns >= w->o->min_ns && w->ops->exit) {
		err = w->ops->exit(w, t, f, ns, e);
		if (err)
			return err;
	}
	t->n--;
	if (t->n && t->stack[t->n - 1].depth + 1 == e->depth)
		t->stack[t->n - 1].child_ns += ns;
	return 0;
}

static int walk_call(struct walk *w, struct wthread *t,
		     const struct lpt_event *e)
{
	const struct options *o = w->o;
	unsigned int m = matches(w, e->func);

	if ((o->filter.n && !(m & MATCH_F)) || (m & MATCH_N) ||
	    (o->depth && e->depth >= o->depth) || !w->ops->call)
		return 0;
	return w->ops->call(w, t, e);
}

int walk_event(struct walk *w, const struct lpt_event *e)
{
	struct wthread *t = walk_thread(w, e->tid);

	if (!t || !t->selected)
		return 0;
	if ((w->o->filter.n || w->o->notrace.n) && !w->fc && w->fc_cap)
		return -ENOMEM;
	switch (e->kind) {
	case LPT_EV_ENTRY:
		return walk_entry(w, t, e);
	case LPT_EV_EXIT:
		return walk_exit(w, t, e);
	default:
		return walk_call(w, t, e);
	}
}

int walk_finish(struct walk *w)
{
	size_t i;
	int err = 0;

	for (i = 0; i < w->t->nthreads && !err; i++)
		if (w->threads[i].n)
			err = pop_lost(w, &w->threads[i], 0, true);
	return err;
}

int walk_file(struct walk *w)
{
	struct cursor c;
	struct lpt_event e;
	int r = 0, err = 0;

	if (cursor_init(&c, w->t, -1, 256 * 1024))
		return -1;
	while (!err && (r = cursor_next(&c, &e)) > 0)
		err = walk_error(w->t, walk_event(w, &e));
	cursor_free(&c);
	if (!err && r < 0)
		return -1;
	return err ? -1 : walk_error(w->t, walk_finish(w)) ? -1 : 0;
}
