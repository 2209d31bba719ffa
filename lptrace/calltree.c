// SPDX-License-Identifier: GPL-2.0
/* calltree.c - the nodes in one array, found by (parent, func) through a hash. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"

static size_t slot(const struct calltree *t, size_t parent, uint64_t func)
{
	size_t i = ((func ^ parent * 0x2545f4914f6cdd1dull) *
		    0x9e3779b97f4a7c15ull >> 20) & (t->hcap - 1);

	while (t->hash[i] && (t->v[t->hash[i]].parent != parent ||
			      t->v[t->hash[i]].func != func))
		i = (i + 1) & (t->hcap - 1);
	return i;
}

static int rehash(struct calltree *t, size_t hcap)
{
	size_t i;

	free(t->hash);
	t->hcap = hcap;
	t->hash = calloc(hcap, sizeof(*t->hash));
	if (!t->hash)
		return -ENOMEM;
	for (i = 1; i < t->n; i++)
		t->hash[slot(t, t->v[i].parent, t->v[i].func)] = i;
	return 0;
}

int calltree_init(struct calltree *t, uint64_t func)
{
	memset(t, 0, sizeof(*t));
	t->cap = 1024;
	t->v = calloc(t->cap, sizeof(*t->v));
	if (!t->v || rehash(t, 2048)) {
		calltree_free(t);
		return -ENOMEM;
	}
	t->n = 1;
	t->v[0].func = func;
	return 0;
}

void calltree_free(struct calltree *t)
{
	free(t->v);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}

size_t calltree_child(struct calltree *t, size_t parent, uint64_t func)
{
	size_t i = slot(t, parent, func), c;

	if (t->hash[i])
		return t->hash[i];
	if (t->n == t->cap) {
		struct ctnode *nv = realloc(t->v, 2 * t->cap * sizeof(*nv));

		if (!nv)
			return 0;
		t->v = nv;
		t->cap *= 2;
	}
	c = t->n++;
	t->v[c] = (struct ctnode){ .func = func, .parent = parent };
	/* Appended: children print in the order they were first called. */
	if (!t->v[parent].child)
		t->v[parent].child = c;
	else
		t->v[t->v[parent].last].next = c;
	t->v[parent].last = c;
	if (2 * t->n > t->hcap) {
		if (rehash(t, 2 * t->hcap))
			return 0;
	} else {
		t->hash[i] = c;
	}
	return c;
}
