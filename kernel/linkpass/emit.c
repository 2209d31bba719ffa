// SPDX-License-Identifier: GPL-2.0
/*
 * The table as assembler source, as kallsyms writes its own: the build
 * assembles it with $(CC) and links it in.  Each entry names a place the
 * linker can find again, so that the next link computes the address, and
 * in a relocatable kernel the relocation, itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkpass.h"

static bool plain_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '.' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

/*
 * A vmlinux entry is relative to a global symbol of its output section,
 * the last one at or before its function (else the first after it): the
 * links before the last differ in what follows the code (kallsyms, BTF,
 * this table), which may move an output section, never the code inside
 * it relative to its own symbols.
 */
static bool anchor(const struct symbol *s, uint32_t shndx)
{
	return s->shndx == shndx &&
	       (s->bind == STB_GLOBAL || s->bind == STB_WEAK) &&
	       (s->type == STT_FUNC || s->type == STT_NOTYPE) &&
	       plain_name(s->name);
}

static int anchor_cmp(const void *a, const void *b)
{
	const struct symbol *x = *(const struct symbol *const *)a;
	const struct symbol *y = *(const struct symbol *const *)b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* The anchor for a function at @addr of @shndx in sorted @v, or NULL. */
static const struct symbol *anchor_for(const struct symbol **v, size_t n,
				       uint32_t shndx, uint64_t addr)
{
	size_t lo = 0, hi = n;

	/* the first anchor after (shndx, addr) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid]->shndx < shndx ||
		    (v[mid]->shndx == shndx && v[mid]->value <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && v[lo - 1]->shndx == shndx)
		return v[lo - 1];
	return lo < n && v[lo]->shndx == shndx ? v[lo] : NULL;
}

static void header(size_t n)
{
	printf("/* %zu ftrace call sites, written by scripts/linkpass */\n", n);
}

/* Did every write to stdout succeed? */
static int flushed(const struct image *im)
{
	if (fflush(stdout) || ferror(stdout))
		return error(im, NULL, "writing the table failed");
	return 0;
}

int emit_vmlinux(struct image *im, const struct site *s, size_t n)
{
	const struct symbol **v, **a;
	size_t i, nv = 0;
	int ret = -1;

	v = calloc(im->nsyms ? im->nsyms : 1, sizeof(*v));
	a = calloc(n ? n : 1, sizeof(*a));
	if (!v || !a) {
		error(im, NULL, "out of memory");
		goto out_free;
	}
	for (i = 1; i < im->nsyms; i++)
		if (im->syms[i].shndx < im->nsecs &&
		    anchor(&im->syms[i], im->syms[i].shndx))
			v[nv++] = &im->syms[i];
	qsort(v, nv, sizeof(*v), anchor_cmp);
	/* every entry placed before any is written */
	for (i = 0; i < n; i++) {
		a[i] = anchor_for(v, nv, s[i].shndx, s[i].fn->start);
		if (!a[i]) {
			error(im, im->secs[s[i].shndx].name,
			      "no global symbol to place %s's site by",
			      s[i].fn->sym->name);
			goto out_free;
		}
	}

	header(n);
	printf("\t.section %s, \"a\"\n\t.balign 8\n", MCOUNT_SECTION);
	for (i = 0; i < n; i++)
		printf("\t.quad\t%s %c 0x%llx\n", a[i]->name,
		       s[i].addr >= a[i]->value ? '+' : '-',
		       (unsigned long long)(s[i].addr >= a[i]->value ?
					    s[i].addr - a[i]->value :
					    a[i]->value - s[i].addr));
	ret = flushed(im);
out_free:
	free(a);
	free(v);
	return ret;
}

/*
 * A module's entries are offsets from the start of their sections.  The
 * object is linked first into the module ("ld -r table.o module.ko"), so
 * the empty section of the same name it starts with a label is placed at
 * the start of the module's.
 */
int emit_module(struct image *im, const struct site *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!plain_name(im->secs[s[i].shndx].name))
			return error(im, im->secs[s[i].shndx].name,
				     "a section name the assembler cannot take");
	header(n);
	/* a module without a site gets no table, as a notrace object */
	if (!n)
		return flushed(im);
	for (i = 0; i < n; i++)
		if (!i || s[i].shndx != s[i - 1].shndx)
			printf("\t.section %s, \"ax\"\n.Lmcount_%u:\n",
			       im->secs[s[i].shndx].name, s[i].shndx);
	printf("\t.section %s, \"a\"\n\t.balign 8\n", MCOUNT_SECTION);
	for (i = 0; i < n; i++)
		printf("\t.quad\t.Lmcount_%u + 0x%llx\n", s[i].shndx,
		       (unsigned long long)s[i].addr);
	return flushed(im);
}
