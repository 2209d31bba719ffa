/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calltree.h - calls merged by their path from a root: one node per
 * distinct path, with its calls, total and self time (graph, folded).
 * Memory is the number of distinct paths, not of calls.
 */
#ifndef LPTRACE_CALLTREE_H
#define LPTRACE_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

struct ctnode {
	uint64_t func;
	uint64_t calls;
	uint64_t total_ns, self_ns;
	size_t parent, child, last, next;	/* indices; 0 = none (0 is the root) */
};

struct calltree {
	struct ctnode *v;
	size_t n, cap;
	size_t *hash;				/* (parent, func) -> node */
	size_t hcap;
};

/* A tree with its root (node 0) for @func; 0 or -ENOMEM. */
int calltree_init(struct calltree *t, uint64_t func);
void calltree_free(struct calltree *t);
/* The child of @parent for @func, added (last) if new; 0 (the root) on ENOMEM. */
size_t calltree_child(struct calltree *t, size_t parent, uint64_t func);

#endif
