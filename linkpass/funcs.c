// SPDX-License-Identifier: GPL-2.0
/* Index of live function symbols. */
#include "funcs.h"

#include <stdbool.h>
#include <stdlib.h>

#include "order.h"
#include "util.h"

/* Higher is a better name for an address: global over weak over local. */
static int bind_preference(uint8_t bind)
{
	return bind == STB_GLOBAL ? 2 : bind == STB_WEAK;
}

/* Does @x come before @y among functions starting at one address? */
static bool alias_before(const struct func *x, const struct func *y)
{
	/* the widest range first, then the best name */
	if (x->end != y->end)
		return x->end > y->end;
	return bind_preference(x->sym->bind) > bind_preference(y->sym->bind);
}

/* Insertion sort of one run of functions sharing a start: runs are short. */
static void order_aliases(struct func *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct func f = v[i];

		for (j = i; j > 0 && alias_before(&f, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = f;
	}
}

/* How many earlier starts to try when functions nest (rare: asm). */
#define NEST_DEPTH 8

void funcs_build(struct image *im, struct funcs *f)
{
	struct func *all = xcalloc(im->nsyms, sizeof(*all));
	uint64_t *start = xcalloc(im->nsyms, sizeof(*start));
	uint32_t *shndx = xcalloc(im->nsyms, sizeof(*shndx));
	uint32_t *order;
	size_t i, j, n = 0;

	for (i = 1; i < im->nsyms; i++) {
		const struct symbol *s = &im->syms[i];

		if (s->type != STT_FUNC && s->type != STT_GNU_IFUNC)
			continue;
		if (s->shndx == SHN_UNDEF || s->shndx >= im->nsecs ||
		    !s->name[0])
			continue;
		all[n].shndx = s->shndx;
		all[n].start = s->value;
		all[n].end = s->value + s->size;
		all[n].sym = s;
		shndx[n] = s->shndx;
		start[n] = s->value;
		n++;
	}
	order = order_by_section_addr(shndx, start, n, im->nsecs);
	f->v = xcalloc(n, sizeof(*f->v));
	for (i = 0; i < n; i++)
		f->v[i] = all[order[i]];
	free(order);
	free(shndx);
	free(start);
	free(all);

	/* aliases: keep the first (widest, best-named) of each address */
	f->n = 0;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && f->v[j].shndx == f->v[i].shndx &&
		     f->v[j].start == f->v[i].start; j++)
			;
		order_aliases(&f->v[i], j - i);
		f->v[f->n++] = f->v[i];
	}
}

void funcs_free(struct funcs *f)
{
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

static bool at_or_before(const struct func *m, uint32_t shndx, uint64_t addr)
{
	return m->shndx < shndx || (m->shndx == shndx && m->start <= addr);
}

/* How far a sorted query walks forward before it binary-searches. */
#define WALK_STEPS 16

/*
 * Index of the last function with (shndx, start) <= (shndx, addr), or
 * -1.  @hint: the previous answer, from which a few steps may do.
 */
static long last_at_or_before(const struct funcs *f, uint32_t shndx,
			      uint64_t addr, long *hint)
{
	long lo = 0, hi = (long)f->n - 1, found = -1;
	int steps;

	if (hint && *hint >= 0 && *hint < (long)f->n &&
	    at_or_before(&f->v[*hint], shndx, addr)) {
		found = *hint;
		for (steps = 0; steps < WALK_STEPS; steps++) {
			if (found + 1 >= (long)f->n ||
			    !at_or_before(&f->v[found + 1], shndx, addr))
				return *hint = found;
			found++;
		}
		lo = found;
	}
	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (at_or_before(&f->v[mid], shndx, addr)) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (hint)
		*hint = found;
	return found;
}

const struct func *funcs_lookup(const struct funcs *f, uint32_t shndx,
				uint64_t addr, long *hint)
{
	long i = last_at_or_before(f, shndx, addr, hint);
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
	long i = last_at_or_before(f, shndx, addr, NULL);

	return i >= 0 && f->v[i].shndx == shndx ? &f->v[i] : NULL;
}

uint64_t funcs_entry(const struct image *im, const struct section *sec,
		     const struct func *fn, uint64_t addr)
{
	uint64_t base = im->ehdr.e_type == ET_REL ? 0 : sec->sh.sh_addr;

	if (fn->start < base || fn->start >= addr)
		return fn->start;
	return fn->start + im->arch->entry_prefix(sec->bytes +
						  (fn->start - base),
						  addr - fn->start);
}
