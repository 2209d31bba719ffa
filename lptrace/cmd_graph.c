// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_graph.c - `lptrace graph FUNC`: the calls made under FUNC, merged
 * into one tree (like `uftrace graph`): each node is a call path from
 * FUNC, with its number of calls and total time.  A recursive FUNC is
 * rooted at its outermost call.  One pass in file order; memory: the
 * tree's distinct paths and each thread's open calls.
 *
 * An entry-only recording has no nesting: there the graph is FUNC's
 * callers and callees, from the return address each call recorded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "commands.h"
#include "units.h"
#include "walk.h"

struct named_count {
	const char *name;
	uint64_t count;
};

struct graph {
	struct trace *t;
	const struct data_sym *root;
	struct calltree tree;
	/* entry-only */
	struct named_count *callers, *callees;
	size_t ncallers, ncallees;
};

static int on_enter(struct walk *w, struct wthread *t, struct frame *f,
		    const struct lpt_event *e)
{
	struct graph *g = w->priv;
	struct frame *p = f > t->stack ? f - 1 : NULL;

	(void)e;
	if (p && p->shown && p->node != WALK_NONE) {
		f->node = calltree_child(&g->tree, p->node, f->func);
		if (!f->node)
			return -ENOMEM;
	} else if (trace_sym_find(g->t, f->func) == g->root) {
		f->node = 0;
	}
	return 0;
}

static int on_return(struct walk *w, struct wthread *t, struct frame *f,
		   uint64_t ns, const struct lpt_event *e)
{
	struct graph *g = w->priv;

	(void)t;
	(void)e;
	if (f->node == WALK_NONE)
		return 0;	/* outside FUNC, or its entry was not seen */
	g->tree.v[f->node].calls++;
	g->tree.v[f->node].total_ns += ns;
	return 0;
}

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

/* Entry-only: who called FUNC, and what FUNC called. */
static int on_call(struct walk *w, struct wthread *t,
		   const struct lpt_event *e)
{
	struct graph *g = w->priv;
	char buf[32];
	int err = 0;

	(void)t;
	if (trace_sym_find(g->t, e->func) == g->root)
		err = count_name(&g->callers, &g->ncallers,
				 trace_caller_name(g->t, e->arg, buf,
						   sizeof(buf)));
	if (!err && trace_sym_find(g->t, e->arg - 1) == g->root)
		err = count_name(&g->callees, &g->ncallees,
				 trace_func_name(g->t, e->func, buf,
						 sizeof(buf)));
	return err;
}

static const struct walk_ops graph_ops = {
	.entry = on_enter, .exit = on_return, .call = on_call,
};

static void print_counts(const char *title, const char *fname,
			 struct named_count *v, size_t n)
{
	size_t i;

	printf("# %s of %s (calls)\n", title, fname);
	for (i = 0; i < n; i++)
		printf("  %10llu  %s\n", (unsigned long long)v[i].count,
		       v[i].name);
}

static void free_counts(struct named_count *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free((char *)v[i].name);
	free(v);
}

static void tree_print(const struct graph *g, size_t i, char *prefix,
		       size_t plen)
{
	const struct calltree *t = &g->tree;
	char buf[32], dur[32];
	size_t c;

	fmt_ns(dur, sizeof(dur), t->v[i].total_ns);
	printf("  %s  %10llu : %.*s%s%s\n", dur,
	       (unsigned long long)t->v[i].calls, (int)plen, prefix,
	       i ? "+-" : "",
	       trace_func_name(g->t, t->v[i].func, buf, sizeof(buf)));
	if (plen + 3 >= 256)
		return;
	for (c = t->v[i].child; c; c = t->v[c].next) {
		memcpy(prefix + plen, i ? (t->v[c].next ? "| " : "  ") : "",
		       i ? 2 : 0);
		tree_print(g, c, prefix, plen + (i ? 2 : 0));
	}
}

int cmd_graph(const struct options *o)
{
	const char *fname = o->operands[0];
	struct graph g = { 0 };
	char prefix[256];
	struct trace t;
	struct walk w;
	int ret = EXIT_ERROR;
	size_t i;

	if (trace_open(&t, o->input, 0))
		return EXIT_ERROR;
	g.t = &t;
	for (i = 0; i < t.nsyms && !g.root; i++)
		if (!strcmp(t.syms[i].name, fname))
			g.root = &t.syms[i];
	if (!g.root) {
		cli_error("%s: no function '%s' in the recorded program",
			  o->input, fname);
		goto out_close;
	}
	if (walk_error(&t, calltree_init(&g.tree, g.root->addr)))
		goto out_close;
	if (walk_error(&t, walk_init(&w, &t, o, &graph_ops, &g)))
		goto out_tree;
	if (walk_file(&w))
		goto out_walk;
	if (!t.r.graph) {
		print_counts("callers", fname, g.callers, g.ncallers);
		print_counts("callees", fname, g.callees, g.ncallees);
	} else {
		printf("# function graph of %s: total time, calls\n", fname);
		tree_print(&g, 0, prefix, 0);
	}
	ret = EXIT_OK;
out_walk:
	walk_free(&w);
out_tree:
	calltree_free(&g.tree);
	free_counts(g.callers, g.ncallers);
	free_counts(g.callees, g.ncallees);
out_close:
	trace_close(&t);
	return ret;
}
