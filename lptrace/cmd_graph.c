// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_graph.c - `lptrace graph FUNC`: the calls made under FUNC, merged
 * into one tree (like `uftrace graph`): each node is a call path from
 * FUNC, with its number of calls and total time.  A recursive FUNC is
 * rooted at its outermost call.
 *
 * An entry-only recording has no nesting: there the graph is FUNC's
 * callers and callees, from the return address each call recorded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tracefile.h"

struct node {
	uint64_t func;
	uint64_t calls;
	uint64_t total_ns;
	size_t parent, child, next;	/* indices; 0 = none (root is 0) */
};

struct tree {
	struct node *v;
	size_t n, cap;
};

/* The child of @parent for @func, added if new; (size_t)-1 on ENOMEM. */
static size_t tree_child(struct tree *t, size_t parent, uint64_t func)
{
	size_t i;

	for (i = t->v[parent].child; i; i = t->v[i].next)
		if (t->v[i].func == func)
			return i;
	if (t->n == t->cap) {
		struct node *nv = realloc(t->v, 2 * t->cap * sizeof(*nv));

		if (!nv)
			return (size_t)-1;
		t->v = nv;
		t->cap *= 2;
	}
	i = t->n++;
	t->v[i] = (struct node){ .func = func, .parent = parent };
	/* Appended: children print in the order they were first called. */
	if (!t->v[parent].child) {
		t->v[parent].child = i;
	} else {
		size_t c = t->v[parent].child;

		while (t->v[c].next)
			c = t->v[c].next;
		t->v[c].next = i;
	}
	return i;
}

/*
 * Merge one thread's calls under @root's site into the tree.  Depths
 * place each event: an event shallower than expected means exits were
 * lost (dropped or filtered), and the walk climbs to its level.
 */
static int tree_thread(struct tree *t, const struct lpt_render *r,
		       const struct lpt_rthread *th, uint64_t root)
{
	size_t i, cur = 0;
	int in = 0, base = 0, depth = 0;

	for (i = 0; i < th->n; i++) {
		const struct lpt_event *e = &th->ev[i];

		if (!in) {
			if (e->kind == LPT_EV_ENTRY && e->func == root) {
				in = 1;
				base = depth = e->depth;
				cur = 0;
			}
			continue;
		}
		if (e->depth < base ||
		    (e->depth == base && e->kind == LPT_EV_ENTRY)) {
			in = 0;		/* the root's exit was lost */
			i--;		/* this event may start a new root */
			continue;
		}
		if (e->kind == LPT_EV_ENTRY) {
			for (; depth >= e->depth; depth--)
				cur = t->v[cur].parent;
			cur = tree_child(t, cur, e->func);
			if (cur == (size_t)-1)
				return -ENOMEM;
			depth = e->depth;
			continue;
		}
		for (; depth > e->depth; depth--)
			cur = t->v[cur].parent;
		if (t->v[cur].func != e->func)
			continue;	/* an exit whose entry was not seen */
		t->v[cur].calls++;
		t->v[cur].total_ns += lpt_render_ns(r, e->tsc) -
				      lpt_render_ns(r, e->arg);
		if (!cur) {
			in = 0;
			continue;
		}
		cur = t->v[cur].parent;
		depth--;
	}
	return 0;
}

static void tree_print(const struct tree *t, const struct lpt_data *d,
		       size_t i, char *prefix, size_t plen)
{
	char buf[32], dur[32];
	size_t c;

	fmt_ns(dur, sizeof(dur), t->v[i].total_ns);
	printf("  %s  %10llu : %.*s%s%s\n", dur,
	       (unsigned long long)t->v[i].calls, (int)plen, prefix,
	       i ? "+-" : "",
	       data_func_name((void *)d, t->v[i].func, buf, sizeof(buf)));
	if (plen + 3 >= 256)
		return;
	for (c = t->v[i].child; c; c = t->v[c].next) {
		memcpy(prefix + plen, i ? (t->v[c].next ? "| " : "  ") : "",
		       i ? 2 : 0);
		tree_print(t, d, c, prefix, plen + (i ? 2 : 0));
	}
}

struct named_count {
	const char *name;
	uint64_t count;
};

/* Count @name in @v (few distinct names: a linear search). */
static int count_name(struct named_count **v, size_t *n, const char *name)
{
	struct named_count *nv;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name)) {
			(*v)[i].count++;
			return 0;
		}
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = (struct named_count){ strdup(name), 1 };
	return nv[*n - 1].name ? 0 : -ENOMEM;
}

static void print_counts(const char *title, const char *fname,
			 struct named_count *v, size_t n)
{
	size_t i;

	printf("# %s of %s (calls)\n", title, fname);
	for (i = 0; i < n; i++) {
		printf("  %10llu  %s\n", (unsigned long long)v[i].count,
		       v[i].name);
		free((char *)v[i].name);
	}
	free(v);
}

/* Entry-only: who called FUNC, and what FUNC called, with counts. */
static int callers_callees(const struct lpt_data *d, uint64_t root,
			   const char *fname)
{
	const struct data_sym *rs = data_sym_find(d, root);
	struct named_count *callers = NULL, *callees = NULL;
	size_t i, ncallers = 0, ncallees = 0;
	char buf[32];
	int err = 0;

	for (i = 0; i < d->nev && !err; i++) {
		const struct lpt_event *e = &d->ev[i];

		if (e->func == root)
			err = count_name(&callers, &ncallers,
					 data_caller_name((void *)d, e->arg,
							  buf, sizeof(buf)));
		if (!err && rs && data_sym_find(d, e->arg - 1) == rs)
			err = count_name(&callees, &ncallees,
					 data_func_name((void *)d, e->func,
							buf, sizeof(buf)));
	}
	print_counts("callers", fname, callers, ncallers);
	print_counts("callees", fname, callees, ncallees);
	return err;
}

int cmd_graph(int argc, char **argv)
{
	const char *in = LPT_DEFAULT_DATA, *fname;
	struct tree t = { 0 };
	struct lpt_render r;
	struct lpt_data d;
	char prefix[256];
	uint64_t root = 0;
	size_t i;
	int c, err = 0, found = 0;

	while ((c = getopt(argc, argv, "i:")) != -1) {
		if (c != 'i')
			return 2;
		in = optarg;
	}
	if (optind + 1 != argc) {
		fputs("usage: lptrace graph [-i FILE] FUNC\n", stderr);
		return 2;
	}
	fname = argv[optind];
	if (data_open(&d, in))
		return 1;
	for (i = 0; i < d.nsyms && !found; i++)
		if (!strcmp(d.syms[i].name, fname)) {
			found = 1;
			root = d.syms[i].addr;
		}
	/* The site may follow endbr64: use the address events carry. */
	for (i = 0; found && i < d.nev; i++)
		if (data_sym_find(&d, d.ev[i].func) == data_sym_find(&d, root)) {
			root = d.ev[i].func;
			break;
		}
	if (!found) {
		cli_error("%s: no function '%s' in the recorded program", in,
			  fname);
		data_close(&d);
		return 1;
	}
	data_render(&d, &r);
	if (!r.graph) {
		err = callers_callees(&d, root, fname);
		data_close(&d);
		return err ? 1 : 0;
	}
	t.cap = 1024;
	t.v = calloc(t.cap, sizeof(*t.v));
	if (!t.v) {
		data_close(&d);
		return 1;
	}
	t.n = 1;
	t.v[0].func = root;
	for (i = 0; i < d.nthreads && !err; i++)
		err = tree_thread(&t, &r, &d.threads[i], root);
	if (err) {
		cli_error("%s: %s", in, strerror(-err));
	} else {
		printf("# function graph of %s: total time, calls\n", fname);
		tree_print(&t, &d, 0, prefix, 0);
	}
	free(t.v);
	data_close(&d);
	return err ? 1 : 0;
}
