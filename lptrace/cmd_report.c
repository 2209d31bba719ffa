// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_report.c - `lptrace report`: per function, the calls, and in a graph
 * recording the total time (entry to exit) and self time (total less
 * the recorded callees' totals), sorted (-s calls|total|self|name).
 * One pass over the file in its order; memory: the functions, and each
 * thread's open calls (walk.c).
 *
 * Calls are counted at entry (an exit whose entry was lost counts too);
 * a call still running at the end counts, without time.  With -t a call
 * counts at its exit, when its time is known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "units.h"
#include "walk.h"

struct fstat {
	uint64_t func;		/* site */
	const char *name;
	uint64_t calls;
	uint64_t total_ns;
	uint64_t self_ns;
};

/* The functions, found by site through an open-addressing hash. */
struct ftable {
	struct fstat *v;
	size_t cap, n;
	uint64_t calls;
	bool at_exit;		/* -t: count calls at their exit */
};

static struct fstat *ftable_get(struct ftable *t, uint64_t func)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		struct ftable nt = { .cap = t->cap ? 2 * t->cap : 1024 };

		nt.v = calloc(nt.cap, sizeof(*nt.v));
		if (!nt.v)
			return NULL;
		for (i = 0; i < t->cap; i++)
			if (t->v[i].name)
				*ftable_get(&nt, t->v[i].func) = t->v[i];
		free(t->v);
		t->v = nt.v;
		t->cap = nt.cap;
	}
	for (i = (func * 0x9e3779b97f4a7c15ull) >> 20 & (t->cap - 1);
	     t->v[i].name && t->v[i].func != func; i = (i + 1) & (t->cap - 1))
		;
	if (!t->v[i].name) {
		t->v[i].func = func;
		t->v[i].name = "";	/* named after the walk */
		t->n++;
	}
	return &t->v[i];
}

static int count_call(struct ftable *t, uint64_t func)
{
	struct fstat *f = ftable_get(t, func);

	if (!f)
		return -ENOMEM;
	f->calls++;
	t->calls++;
	return 0;
}

static int on_enter(struct walk *w, struct wthread *t, struct frame *f,
		    const struct lpt_event *e)
{
	struct ftable *ft = w->priv;

	(void)t;
	(void)e;
	return ft->at_exit ? 0 : count_call(ft, f->func);
}

static int on_return(struct walk *w, struct wthread *t, struct frame *f,
		   uint64_t ns, const struct lpt_event *e)
{
	struct ftable *ft = w->priv;
	struct fstat *s;

	(void)t;
	(void)e;
	if ((!f->entered || ft->at_exit) && count_call(ft, f->func))
		return -ENOMEM;
	s = ftable_get(ft, f->func);
	if (!s)
		return -ENOMEM;
	s->total_ns += ns;
	s->self_ns += ns > f->child_ns ? ns - f->child_ns : 0;
	return 0;
}

static int on_call(struct walk *w, struct wthread *t,
		   const struct lpt_event *e)
{
	(void)t;
	return count_call(w->priv, e->func);
}

static const struct walk_ops report_ops = {
	.entry = on_enter, .exit = on_return, .call = on_call,
};

static enum sort_key sort_key;

static int cmp_fstat(const void *a, const void *b)
{
	const struct fstat *x = a, *y = b;
	uint64_t kx, ky;

	switch (sort_key) {
	case SORT_CALLS:
		kx = x->calls, ky = y->calls;
		break;
	case SORT_SELF:
		kx = x->self_ns, ky = y->self_ns;
		break;
	case SORT_TOTAL:
		kx = x->total_ns, ky = y->total_ns;
		break;
	default:
		return strcmp(x->name, y->name);
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void print_report(const struct fstat *v, size_t n, int graph)
{
	char tot[32], self[32];
	size_t i;

	if (graph)
		printf("  Total time   Self time       Calls  Function\n"
		       "  ==========  ==========  ==========  ====================\n");
	else
		printf("       Calls  Function\n"
		       "  ==========  ====================\n");
	for (i = 0; i < n; i++) {
		if (!graph) {
			printf("  %10llu  %s\n", (unsigned long long)v[i].calls,
			       v[i].name);
			continue;
		}
		fmt_ns(tot, sizeof(tot), v[i].total_ns);
		fmt_ns(self, sizeof(self), v[i].self_ns);
		printf("  %s  %s  %10llu  %s\n", tot, self,
		       (unsigned long long)v[i].calls, v[i].name);
	}
}

/* The table compacted into a named list (names of unknown sites kept). */
static size_t name_rows(struct ftable *ft, struct trace *t)
{
	struct fstat *v = ft->v;
	size_t i, n = 0;

	for (i = 0; i < ft->cap; i++) {
		char buf[32];

		if (!ft->v[i].name || !ft->v[i].calls)
			continue;
		v[n] = ft->v[i];
		v[n].name = trace_func_name(t, v[n].func, buf, sizeof(buf));
		if (v[n].name == buf)
			v[n].name = strdup(buf);	/* freed at exit */
		n++;
	}
	return n;
}

int cmd_report(const struct options *o)
{
	struct ftable ft = { .at_exit = o->min_ns > 0 };
	struct trace t;
	struct walk w;
	int ret = EXIT_ERROR;
	size_t n;

	if (trace_open(&t, o->input, 0))
		return EXIT_ERROR;
	if (!t.r.graph && (o->sort == SORT_TOTAL || o->sort == SORT_SELF ||
			   o->min_ns)) {
		cli_error("%s: an entry-only recording has no times (record with --graph)",
			  o->input);
		goto out_close;
	}
	sort_key = o->sort != SORT_DEFAULT ? o->sort :
		   t.r.graph ? SORT_TOTAL : SORT_CALLS;
	if (walk_error(&t, walk_init(&w, &t, o, &report_ops, &ft)))
		goto out_close;
	if (walk_file(&w))
		goto out_free;
	n = name_rows(&ft, &t);
	qsort(ft.v, n, sizeof(*ft.v), cmp_fstat);
	printf("# lptrace report: %s: events=%llu threads=%zu calls=%llu dropped=%llu overwritten=%llu recursed=%llu%s\n",
	       o->input, (unsigned long long)t.nevents, t.nthreads,
	       (unsigned long long)ft.calls,
	       (unsigned long long)t.end.dropped,
	       (unsigned long long)t.end.overwritten,
	       (unsigned long long)t.end.recursed,
	       t.end.signo ? " (ended by a fatal signal)" : "");
	print_report(ft.v, n, t.r.graph);
	ret = EXIT_OK;
out_free:
	free(ft.v);
	walk_free(&w);
out_close:
	trace_close(&t);
	return ret;
}
