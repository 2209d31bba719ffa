// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_dump.c - `lptrace dump --text|--chrome|--folded`.
 *
 *   --text    ftrace text, every thread merged in time order (merge.c)
 *   --chrome  Chrome trace-event JSON, in file order (-r: a time window)
 *   --folded  one line per call path, "a;b;c SELF_NS": flamegraph.pl,
 *             inferno and speedscope read it
 *
 * Text and JSON have one writer, the runtime's render.c, which takes
 * whole arrays of events: the events go to it in batches of at most
 * BATCH, and of each batch's output only the event lines are kept (the
 * header comes from the first, the JSON's wrapper from an empty one).
 * A call with no callee is one text line when its exit follows its
 * entry in the batch: a batch that ends on an entry takes the exit
 * along when it is that thread's next event.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "commands.h"
#include "merge.h"
#include "walk.h"

#define BATCH	16384

struct dump {
	const struct options *o;
	struct trace *t;
	struct merge *m;		/* --text */
	struct walk *w;
	struct lpt_event *ev;		/* the batch, in arrival order */
	size_t n;
	struct lpt_event *sorted;	/* grouped by thread */
	size_t *order;
	struct lpt_rthread *rt;
	unsigned char *seen;		/* per thread, take_leaf_exits */
	size_t batches;
	uint64_t t0;			/* -r: the first event's ns */
	struct calltree tree;		/* --folded */
};

/* Lines of render.c's output to keep. */
enum keep {
	KEEP_ALL,		/* the first text batch: with the header */
	KEEP_EVENTS,		/* the event lines only */
	KEEP_NAMES,		/* JSON: the thread_name events */
	KEEP_HEAD,		/* JSON: up to the closing process_labels */
	KEEP_TAIL,		/* JSON: from there */
};

#define JSON_EVENT	"{\"ph\":\""
#define JSON_META	"{\"ph\":\"M\""
#define JSON_NAME	"{\"ph\":\"M\",\"name\":\"thread_name\""
#define JSON_LABELS	"{\"ph\":\"M\",\"name\":\"process_labels\""

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool keep_line(const struct dump *d, enum keep k, const char *s,
		      bool *tail)
{
	if (starts(s, JSON_LABELS))
		*tail = true;
	switch (k) {
	case KEEP_ALL:
		return true;
	case KEEP_EVENTS:
		if (d->o->format == DUMP_TEXT)
			return *s != '#';
		return starts(s, JSON_EVENT) && !starts(s, JSON_META);
	case KEEP_NAMES:
		return starts(s, JSON_NAME);
	case KEEP_HEAD:
		return !*tail;
	case KEEP_TAIL:
		return *tail;
	}
	return false;
}

/* Render @r with render.c, and print the lines @k keeps. */
static int render(struct dump *d, const struct lpt_render *r, enum keep k)
{
	char *buf = NULL, *s, *nl;
	size_t len = 0;
	bool tail = false;
	int err;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -errno;
	err = d->o->format == DUMP_TEXT ? lpt_render_text(f, r) :
					  lpt_render_json(f, r);
	if (fclose(f) && !err)
		err = -ENOMEM;
	for (s = buf; !err && s && *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			break;
		if (keep_line(d, k, s, &tail))
			fwrite(s, 1, nl + 1 - s, stdout);
	}
	free(buf);
	return err;
}

static int cmp_order(const void *a, const void *b, void *ev)
{
	const struct lpt_event *x = (const struct lpt_event *)ev + *(const size_t *)a;
	const struct lpt_event *y = (const struct lpt_event *)ev + *(const size_t *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * A text batch whose last event of a thread is the entry of its open
 * call takes that call's exit along, if it is the thread's next event.
 */
static int take_leaf_exits(struct dump *d)
{
	size_t i;
	int err = 0;

	memset(d->seen, 0, d->t->nthreads * sizeof(*d->seen));
	for (i = d->n; i-- > 0 && !err;) {
		const struct lpt_event *last = &d->ev[i];
		struct wthread *wt = walk_thread(d->w, last->tid);
		const struct frame *top;
		const struct lpt_event *h;
		struct lpt_event e;

		if (!wt || d->seen[wt - d->w->threads]++)
			continue;
		top = wt->n ? &wt->stack[wt->n - 1] : NULL;
		if (last->kind != LPT_EV_ENTRY || !top || !top->shown ||
		    top->func != last->func || top->tsc != last->tsc)
			continue;
		h = merge_peek(d->m, last->tid);
		if (!h || h->kind != LPT_EV_EXIT || h->func != top->func ||
		    h->depth != top->depth)
			continue;
		if (merge_take(d->m, last->tid, &e) < 0)
			return -EIO;
		err = walk_event(d->w, &e);
	}
	return err;
}

/* Print the batch through render.c, one rthread per thread in it. */
static int flush(struct dump *d)
{
	struct lpt_render r = d->t->r;
	size_t i, j, nrt = 0;
	int err;

	if (d->m && (err = take_leaf_exits(d)))
		return err;
	for (i = 0; i < d->n; i++)
		d->order[i] = i;
	qsort_r(d->order, d->n, sizeof(*d->order), cmp_order, d->ev);
	for (i = 0; i < d->n; i++)
		d->sorted[i] = d->ev[d->order[i]];
	for (i = 0; i < d->n; i = j) {
		const struct trace_thread *th = trace_thread(d->t, d->sorted[i].tid);

		for (j = i; j < d->n && d->sorted[j].tid == d->sorted[i].tid; j++)
			;
		d->rt[nrt] = (struct lpt_rthread){ .tid = d->sorted[i].tid,
						   .ev = &d->sorted[i],
						   .n = j - i };
		snprintf(d->rt[nrt].comm, sizeof(d->rt[nrt].comm), "%s",
			 th ? th->comm : "<...>");
		nrt++;
	}
	r.t = d->rt;
	r.nthreads = nrt;
	err = render(d, &r, d->batches++ || d->o->format != DUMP_TEXT ?
			    KEEP_EVENTS : KEEP_ALL);
	d->n = 0;
	return err;
}

static int add(struct dump *d, const struct lpt_event *e, unsigned int depth)
{
	/* BATCH + one exit per thread (take_leaf_exits) */
	if (d->n >= BATCH && !d->m) {
		int err = flush(d);

		if (err)
			return err;
	}
	d->ev[d->n] = *e;
	d->ev[d->n].depth = depth > 255 ? 255 : depth;
	d->n++;
	return 0;
}

/* -r: does a call starting at @tsc fall in the window? */
static int in_range(const struct dump *d, uint64_t tsc)
{
	uint64_t ns;

	if (!d->o->range)
		return 1;
	ns = trace_ns(d->t, tsc) - d->t0;
	return ns >= d->o->range_from &&
	       (!d->o->range_to || ns < d->o->range_to);
}

static int text_entry(struct walk *w, struct wthread *t, struct frame *f,
		      const struct lpt_event *e)
{
	(void)t;
	return add(w->priv, e, f->sdepth);
}

static int text_exit(struct walk *w, struct wthread *t, struct frame *f,
		     uint64_t ns, const struct lpt_event *e)
{
	struct dump *d = w->priv;

	(void)t;
	(void)ns;
	if (d->o->format == DUMP_CHROME)
		return in_range(d, e->arg) ? add(d, e, e->depth) : 0;
	return add(d, e, f->sdepth);
}

static int any_call(struct walk *w, struct wthread *t,
		    const struct lpt_event *e)
{
	struct dump *d = w->priv;

	(void)t;
	return in_range(d, e->tsc) ? add(d, e, e->depth) : 0;
}

/* JSON: an entry whose exit was lost is a "B" event (render.c). */
static int chrome_lost(struct walk *w, struct wthread *t, struct frame *f)
{
	struct lpt_event e = { .tsc = f->tsc, .func = f->func, .arg = f->arg,
			       .tid = t->th->tid, .kind = LPT_EV_ENTRY,
			       .depth = f->depth,
			       .cpu = LPT_EV_CPU_UNKNOWN };

	return in_range(w->priv, f->tsc) ? add(w->priv, &e, f->depth) : 0;
}

static const struct walk_ops text_ops = {
	.entry = text_entry, .exit = text_exit, .call = any_call,
};

static const struct walk_ops chrome_ops = {
	.exit = text_exit, .lost = chrome_lost, .call = any_call,
};

static int folded_entry(struct walk *w, struct wthread *t, struct frame *f,
			const struct lpt_event *e)
{
	struct dump *d = w->priv;
	struct frame *p = f > t->stack ? f - 1 : NULL;

	(void)e;
	f->node = calltree_child(&d->tree, p && p->shown ? p->node : 0,
				 f->func);
	return f->node ? 0 : -ENOMEM;
}

static int folded_exit(struct walk *w, struct wthread *t, struct frame *f,
		       uint64_t ns, const struct lpt_event *e)
{
	struct dump *d = w->priv;

	(void)t;
	(void)e;
	if (f->node != WALK_NONE)
		d->tree.v[f->node].self_ns += ns > f->child_ns ?
					      ns - f->child_ns : 0;
	return 0;
}

static const struct walk_ops folded_ops = {
	.entry = folded_entry, .exit = folded_exit,
};

/* Every path with self time: "a;b;c NS". */
static void folded_print(const struct dump *d, size_t i, char *path,
			 size_t len, size_t cap)
{
	const struct calltree *t = &d->tree;
	size_t c, at = len;

	if (i) {
		char buf[32];
		const char *name = trace_func_name(d->t, t->v[i].func, buf,
						   sizeof(buf));

		at += snprintf(path + len, cap - len, "%s%s", len ? ";" : "",
			       name);
		if (at >= cap)
			at = cap - 1;
		if (t->v[i].self_ns)
			printf("%s %llu\n", path,
			       (unsigned long long)t->v[i].self_ns);
	}
	for (c = t->v[i].child; c; c = t->v[c].next)
		folded_print(d, c, path, at, cap);
	path[len] = 0;
}

static int dump_events(struct dump *d)
{
	struct lpt_event e;
	int r, err = 0;

	if (d->o->format != DUMP_TEXT)
		return walk_file(d->w) ? -1 : 0;
	while (!err && (r = merge_next(d->m, &e)) > 0) {
		err = walk_error(d->t, walk_event(d->w, &e));
		if (!err && d->n >= BATCH)
			err = walk_error(d->t, flush(d));
	}
	if (err || r < 0)
		return -1;
	return walk_error(d->t, walk_finish(d->w)) ? -1 : 0;
}

static int dump_setup(struct dump *d)
{
	size_t cap = BATCH + d->t->nthreads + 1;

	d->ev = malloc(cap * sizeof(*d->ev));
	d->sorted = malloc(cap * sizeof(*d->sorted));
	d->order = malloc(cap * sizeof(*d->order));
	d->rt = calloc(cap, sizeof(*d->rt));
	d->seen = calloc(d->t->nthreads + 1, 1);
	if (!d->ev || !d->sorted || !d->order || !d->rt || !d->seen)
		return -ENOMEM;
	return 0;
}

/* The JSON before the events: its head and every thread's name. */
static int chrome_head(struct dump *d, struct lpt_render *empty)
{
	size_t i;
	int err;

	err = render(d, empty, KEEP_HEAD);
	for (i = 0; !err && i < d->t->nthreads; i++) {
		struct lpt_rthread rt = { .tid = d->t->threads[i].tid };
		struct lpt_render r = *empty;

		if (!d->w->threads[i].selected)
			continue;
		memcpy(rt.comm, d->t->threads[i].comm, sizeof(rt.comm));
		r.t = &rt;
		r.nthreads = 1;
		err = render(d, &r, KEEP_NAMES);
	}
	return err;
}

int cmd_dump(const struct options *o)
{
	const struct walk_ops *ops = o->format == DUMP_TEXT ? &text_ops :
				     o->format == DUMP_CHROME ? &chrome_ops :
				     &folded_ops;
	struct dump d = { .o = o };
	struct lpt_render empty;
	struct merge m;
	struct trace t;
	struct walk w = { 0 };
	int ret = EXIT_ERROR, err;
	char path[8192];

	if (trace_open(&t, o->input, 0))
		return EXIT_ERROR;
	d.t = &t;
	d.w = &w;
	d.t0 = trace_ns(&t, t.first_tsc);
	empty = t.r;
	if (!t.r.graph && (o->format == DUMP_FOLDED || o->min_ns)) {
		cli_error("%s: an entry-only recording has no %s (record with --graph)",
			  o->input, o->min_ns ? "times" : "stacks");
		goto out_close;
	}
	if (walk_error(&t, dump_setup(&d) ?:
			   walk_init(&w, &t, o, ops, &d) ?:
			   (o->format == DUMP_FOLDED ?
			    calltree_init(&d.tree, 0) : 0)))
		goto out_free;
	if (o->format == DUMP_TEXT) {
		if (merge_init(&m, &t))
			goto out_free;
		d.m = &m;
	}
	err = o->format == DUMP_CHROME ? chrome_head(&d, &empty) : 0;
	if (!err && dump_events(&d))
		goto out_free;
	if (!err && o->format != DUMP_FOLDED)
		err = flush(&d);
	if (!err && o->format == DUMP_CHROME)
		err = render(&d, &empty, KEEP_TAIL);
	if (!err && o->format == DUMP_FOLDED) {
		path[0] = 0;
		folded_print(&d, 0, path, 0, sizeof(path));
	}
	if (walk_error(&t, err))
		goto out_free;
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("stdout: write failed");
		goto out_free;
	}
	ret = EXIT_OK;
out_free:
	if (d.m)
		merge_free(d.m);
	calltree_free(&d.tree);
	walk_free(&w);
	free(d.ev);
	free(d.sorted);
	free(d.order);
	free(d.rt);
	free(d.seen);
out_close:
	trace_close(&t);
	return ret;
}
