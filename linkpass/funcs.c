// SPDX-License-Identifier: GPL-2.0
/* Index of live function symbols. */
#include "funcs.h"

#include <stdlib.h>

#include "util.h"

/* Higher is a better name for an address: global over weak over local. */
static int bind_rank(uint8_t bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 2;
	case STB_WEAK:
		return 1;
	default:
		return 0;
	}
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* at one address: the widest range first, then the best name */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return bind_rank(y->sym->bind) - bind_rank(x->sym->bind);
}

void funcs_build(struct image *im, struct funcs *f)
{
	size_t i, n = 0;

	f->v = xcalloc(im->nsyms, sizeof(*f->v));
	for (i = 1; i < im->nsyms; i++) {
		const struct symbol *s = &im->syms[i];

		if (s->type != STT_FUNC && s->type != STT_GNU_IFUNC)
			continue;
		if (s->shndx == SHN_UNDEF || s->shndx >= im->nsecs ||
		    !s->name[0])
			continue;
		f->v[n].shndx = s->shndx;
		f->v[n].start = s->value;
		f->v[n].end = s->value + s->size;
		f->v[n].sym = s;
		n++;
	}
	qsort(f->v, n, sizeof(*f->v), cmp_func);

	/* aliases: keep the first (widest, best-named) of each address */
	f->n = 0;
	for (i = 0; i < n; i++) {
		if (f->n && f->v[f->n - 1].shndx == f->v[i].shndx &&
		    f->v[f->n - 1].start == f->v[i].start)
			continue;
		f->v[f->n++] = f->v[i];
	}
}

void funcs_free(struct funcs *f)
{
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

/* Index of the last function with (shndx, start) <= (shndx, addr), or -1. */
static long last_at_or_before(const struct funcs *f, uint32_t shndx,
			      uint64_t addr)
{
	long lo = 0, hi = (long)f->n - 1, found = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;
		const struct func *m = &f->v[mid];

		if (m->shndx < shndx || (m->shndx == shndx && m->start <= addr)) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/* How many earlier starts to try when functions nest (rare: asm). */
#define NEST_DEPTH 8

const struct func *funcs_lookup(const struct funcs *f, uint32_t shndx,
				uint64_t addr)
{
	long i = last_at_or_before(f, shndx, addr);
	int tries;

	for (tries = 0; i >= 0 && tries < NEST_DEPTH; i--, tries++) {
		const struct func *c = &f->v[i];

		if (c->shndx != shndx)
			break;
		if (addr < c->end || (c->end == c->start && addr == c->start))
			return c;
	}
	return NULL;
}

const struct func *funcs_prev(const struct funcs *f, uint32_t shndx,
			      uint64_t addr)
{
	long i = last_at_or_before(f, shndx, addr);

	return i >= 0 && f->v[i].shndx == shndx ? &f->v[i] : NULL;
}
