// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_report.c - `lptrace report`: per function, the calls, and in a graph
 * recording the total time (entry to exit) and self time (total less
 * the recorded callees' totals), sorted (-s calls|total|self|name).
 *
 * Calls are counted at entry (an exit whose entry was overwritten
 * counts too); a call still running at the end counts, without time.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tracefile.h"

struct fstat {
	uint64_t func;		/* site */
	const char *name;
	uint64_t calls;
	uint64_t total_ns;
	uint64_t self_ns;
};

struct open_call {
	const struct lpt_event *e;
	uint64_t child_ns;
};

/* The functions, found by site through an open-addressing hash. */
struct ftable {
	struct fstat *v;
	size_t cap, n;
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
		*t = nt;
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

/* One thread's events: calls, and with exits, total and self times. */
static int walk_thread(struct ftable *t, const struct lpt_render *r,
		       const struct lpt_rthread *th, uint64_t *calls)
{
	struct open_call *open;
	size_t i, n = 0;

	open = malloc((th->n ? th->n : 1) * sizeof(*open));
	if (!open)
		return -ENOMEM;
	for (i = 0; i < th->n; i++) {
		const struct lpt_event *e = &th->ev[i];
		struct fstat *f = ftable_get(t, e->func);
		uint64_t child = 0, dur;
		int matched = 0;

		if (!f)
			goto out_nomem;
		if (e->kind != LPT_EV_EXIT) {
			f->calls++;
			(*calls)++;
			if (e->kind == LPT_EV_ENTRY)
				open[n++] = (struct open_call){ e, 0 };
			continue;
		}
		/* Deeper open calls lost their exit: they stay untimed. */
		while (n && open[n - 1].e->depth > e->depth)
			n--;
		if (n && open[n - 1].e->depth == e->depth &&
		    open[n - 1].e->func == e->func) {
			child = open[--n].child_ns;
			matched = 1;
		}
		if (!matched) {
			f->calls++;
			(*calls)++;
		}
		dur = lpt_render_ns(r, e->tsc) - lpt_render_ns(r, e->arg);
		f->total_ns += dur;
		f->self_ns += dur > child ? dur - child : 0;
		if (n && open[n - 1].e->depth + 1 == e->depth)
			open[n - 1].child_ns += dur;
	}
	free(open);
	return 0;

out_nomem:
	free(open);
	return -ENOMEM;
}

static int sort_key;

static int cmp_fstat(const void *a, const void *b)
{
	const struct fstat *x = a, *y = b;
	uint64_t kx, ky;

	switch (sort_key) {
	case 'c':
		kx = x->calls, ky = y->calls;
		break;
	case 's':
		kx = x->self_ns, ky = y->self_ns;
		break;
	case 't':
		kx = x->total_ns, ky = y->total_ns;
		break;
	default:
		return strcmp(x->name, y->name);
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void print_report(const struct lpt_data *d, struct fstat *v, size_t n,
			 int graph)
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
	(void)d;
}

int cmd_report(int argc, char **argv)
{
	const char *in = LPT_DEFAULT_DATA, *sort = NULL;
	struct ftable t = { 0 };
	struct lpt_render r;
	struct lpt_data d;
	struct fstat *v;
	uint64_t calls = 0;
	size_t i, n = 0;
	int c, err = 0;

	while ((c = getopt(argc, argv, "i:s:")) != -1) {
		switch (c) {
		case 'i':
			in = optarg;
			break;
		case 's':
			sort = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc || (sort && strcmp(sort, "calls") &&
			       strcmp(sort, "total") && strcmp(sort, "self") &&
			       strcmp(sort, "name"))) {
		fputs("usage: lptrace report [-i FILE] [-s calls|total|self|name]\n",
		      stderr);
		return 2;
	}
	if (data_open(&d, in))
		return 1;
	data_render(&d, &r);
	if (!r.graph && sort && (!strcmp(sort, "total") || !strcmp(sort, "self"))) {
		cli_error("%s: an entry-only recording has no times (record with --graph)",
			  in);
		data_close(&d);
		return 1;
	}
	sort_key = sort ? (*sort == 'n' ? 'n' : *sort) : r.graph ? 't' : 'c';
	for (i = 0; i < d.nthreads && !err; i++)
		err = walk_thread(&t, &r, &d.threads[i], &calls);
	if (err) {
		cli_error("%s: %s", in, strerror(-err));
		goto out;
	}
	/* Compact the table into a list, named. */
	v = t.v;
	for (i = 0; i < t.cap; i++) {
		char buf[32];

		if (!t.v[i].name)
			continue;
		v[n] = t.v[i];
		v[n].name = data_func_name(&d, v[n].func, buf, sizeof(buf));
		if (v[n].name == buf)
			v[n].name = strdup(buf);	/* freed at exit */
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_fstat);
	printf("# lptrace report: %s: events=%zu threads=%zu calls=%llu dropped=%llu overwritten=%llu recursed=%llu%s\n",
	       in, d.nev, d.nthreads, (unsigned long long)calls,
	       (unsigned long long)d.end.dropped,
	       (unsigned long long)d.end.overwritten,
	       (unsigned long long)d.end.recursed,
	       d.end.signo ? " (ended by a fatal signal)" : "");
	print_report(&d, v, n, r.graph);
out:
	free(t.v);
	data_close(&d);
	return err ? 1 : 0;
}
