// SPDX-License-Identifier: GPL-2.0
/* Reading the table out of a linked image or a relocatable object. */
#include "table_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcount-table.h"
#include "relocs.h"
#include "util.h"

static const char *const default_bounds[TABLE_BOUND_NAMES] = {
	MCOUNT_KERNEL_START, MCOUNT_KERNEL_STOP,
	MCOUNT_LINKER_START, MCOUNT_LINKER_STOP,
};

void table_bounds_init(struct table_bounds *b, const char *start_sym,
		       const char *stop_sym)
{
	memset(b, 0, sizeof(*b));
	b->given = start_sym || stop_sym;
	if (!b->given) {
		memcpy(b->names, default_bounds, sizeof(b->names));
		b->n = TABLE_BOUND_NAMES;
	} else if (start_sym && stop_sym) {
		/* one missing is reported by locate() */
		b->names[0] = start_sym;
		b->names[1] = stop_sym;
		b->n = 2;
	}
}

/* The table's bounds into @t and *@stop; t->found false if absent. */
static int locate(struct image *im, struct table_bounds *bd, struct table *t,
		  uint64_t *stop)
{
	const struct symbol *a = NULL, *b = NULL;
	struct section *sec;
	size_t i;

	if (bd->given && bd->n != 2)
		return lp_error(im->path, "table bounds",
				"give both --start-sym and --stop-sym");
	if (!bd->looked) {
		if (image_find_symbols(im, bd->names, bd->n, bd->syms,
				       bd->found) < 0)
			return -1;
		bd->looked = true;
	}
	if (bd->given && (!bd->found[0] || !bd->found[1]))
		return lp_error(im->path, bd->names[!bd->found[0] ? 0 : 1],
				"table bound symbol not defined in the image");
	for (i = 0; i < bd->n && !a; i += 2) {
		if (bd->found[i] && bd->found[i + 1]) {
			a = &bd->syms[i];
			b = &bd->syms[i + 1];
		}
	}
	if (a) {
		snprintf(t->how, sizeof(t->how), "%s..%s", a->name, b->name);
		if (a->value > b->value)
			return lp_error(im->path, t->how,
					"start symbol (0x%llx) lies after stop symbol (0x%llx)",
					(unsigned long long)a->value,
					(unsigned long long)b->value);
		t->start = a->value;
		*stop = b->value;
		t->found = true;
		if (t->start == *stop)
			return 0;	/* an empty table */
		t->sec = image_section_at(im, t->start);
		if (!t->sec || *stop - t->sec->sh.sh_addr > t->sec->sh.sh_size)
			return lp_error(im->path, t->how,
					"table 0x%llx..0x%llx is not inside one allocated section",
					(unsigned long long)t->start,
					(unsigned long long)*stop);
		return 0;
	}
	sec = image_find_section(im, MCOUNT_SECTION);
	if (!sec || !(sec->sh.sh_flags & SHF_ALLOC))
		return 0;
	snprintf(t->how, sizeof(t->how), "section %s", sec->name);
	t->sec = sec;
	t->start = sec->sh.sh_addr;
	*stop = sec->sh.sh_addr + sec->sh.sh_size;
	t->found = true;
	return 0;
}

/*
 * Apply the RELATIVE dynamic relocations that land inside the table (a
 * relocatable vmlinux's: arm64 and riscv64 link it -shared -Bsymbolic),
 * and the absolute ones against a defined dynamic symbol (a PIE's or a
 * shared library's: dynamic.c).
 */
static int apply_dynamic(struct image *im, struct table *t, uint64_t stop)
{
	unsigned int w = im->arch->addr_size;
	size_t i, j;

	for (i = 1; i < im->nsecs; i++) {
		struct section *s = &im->secs[i];
		enum reloc_layout l;
		const void *base;
		size_t n;

		if ((s->sh.sh_type != SHT_RELA && s->sh.sh_type != SHT_REL) ||
		    !(s->sh.sh_flags & SHF_ALLOC))
			continue;
		l = image_reloc_layout(im, s);
		if (s->sh.sh_entsize != reloc_entsize(l) ||
		    s->sh.sh_size % reloc_entsize(l))
			return lp_error(im->path, s->name,
					"sh_entsize %llu, expected %zu",
					(unsigned long long)s->sh.sh_entsize,
					reloc_entsize(l));
		n = s->sh.sh_size / reloc_entsize(l);
		base = n ? image_section_bytes(im, s) : NULL;
		if (n && !base)
			return -1;
		for (j = 0; j < n; j++) {
			uint64_t off = reloc_offset(l, base, j), symval = 0;
			struct reloc r;

			/* most land elsewhere: one compare before the rest */
			if (off - t->start >= stop - t->start)
				continue;
			reloc_get(l, base, j, &r);
			if ((r.type != im->arch->relative_reloc &&
			     (r.type != im->arch->abs_reloc || !r.sym)) ||
			    (r.offset - t->start) % w)
				continue;
			if (r.type == im->arch->abs_reloc &&
			    dynsym_value(im, s, r.sym, &symval) < 0)
				return -1;
			/* Rel keeps the value in place; Rela in the addend */
			if (reloc_has_addend(l))
				t->v[(r.offset - t->start) / w] =
					symval + (uint64_t)r.addend;
			else
				t->v[(r.offset - t->start) / w] += symval;
		}
	}
	return 0;
}

/* The @w-byte word at @p, zero-extended. */
static uint64_t word_at(const uint8_t *p, unsigned int w)
{
	uint64_t v64;
	uint32_t v32;

	if (w == 8) {
		memcpy(&v64, p, 8);
		return v64;
	}
	memcpy(&v32, p, 4);
	return v32;
}

int table_read(struct image *im, const char *start_sym, const char *stop_sym,
	       struct table *t)
{
	struct table_bounds b;

	table_bounds_init(&b, start_sym, stop_sym);
	return table_read_bounds(im, &b, t);
}

int table_read_found(struct image *im, const char *start_sym,
		     const char *stop_sym, struct table *t)
{
	if (table_read(im, start_sym, stop_sym, t) < 0)
		return -1;
	if (t->found)
		return 0;
	table_free(t);
	return lp_error(im->path, "ftrace table",
			"not found: no " MCOUNT_KERNEL_START "/" MCOUNT_KERNEL_STOP
			" or " MCOUNT_LINKER_START "/" MCOUNT_LINKER_STOP
			" symbols and no " MCOUNT_SECTION " section");
}

int table_read_bounds(struct image *im, struct table_bounds *b,
		      struct table *t)
{
	unsigned int w = im->arch->addr_size;
	const uint8_t *bytes;
	uint64_t stop = 0;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (locate(im, b, t, &stop) < 0)
		return -1;
	if (!t->found || t->start == stop)
		return 0;
	if ((stop - t->start) % w)
		return lp_error(im->path, t->how,
				"table size 0x%llx is not a multiple of the entry size %u",
				(unsigned long long)(stop - t->start), w);
	if (t->sec->sh.sh_type == SHT_NOBITS)
		return lp_error(im->path, t->how,
				"table lies in %s, which has no bytes (SHT_NOBITS)",
				t->sec->name);
	bytes = image_section_bytes(im, (struct section *)t->sec);
	if (!bytes)
		return -1;
	t->n = (stop - t->start) / w;
	t->v = xcalloc(t->n, sizeof(*t->v));
	bytes += t->start - t->sec->sh.sh_addr;
	for (i = 0; i < t->n; i++)
		t->v[i] = word_at(bytes + i * w, w);
	if (apply_dynamic(im, t, stop) < 0) {
		table_free(t);	/* callers free only a table read whole */
		return -1;
	}
	return 0;
}

/* Entry @k of @t from relocation @r of @rsec; -1 after an error. */
static int object_entry(struct image *im, const struct section *rsec,
			size_t j, const struct reloc *r, bool addend,
			const uint8_t *bytes, size_t n, bool *seen,
			struct place *t)
{
	unsigned int w = im->arch->addr_size;
	size_t k = r->offset / w;
	const struct symbol *s;
	uint64_t add;

	if (r->offset % w || k >= n || seen[k] || r->type != im->arch->abs_reloc)
		return lp_error(im->path, rsec->name,
				"entry %zu (offset 0x%llx, type %u): not one %u-byte absolute relocation per table entry",
				j, (unsigned long long)r->offset, r->type, w);
	if (r->sym >= im->nsyms || im->syms[r->sym].shndx == SHN_UNDEF ||
	    im->syms[r->sym].shndx >= im->nsecs)
		return lp_error(im->path, rsec->name,
				"entry %zu: symbol %llu is not defined in a section of the object",
				j, (unsigned long long)r->sym);
	s = &im->syms[r->sym];
	/* a Rel entry's addend is the entry's own bytes, signed */
	add = word_at(bytes + r->offset, w);
	if (w == 4)
		add = (uint64_t)(int64_t)(int32_t)add;
	seen[k] = true;
	t[k].shndx = s->shndx;
	t[k].off = s->value + (addend ? (uint64_t)r->addend : add);
	return 0;
}

int table_read_object(struct image *im, struct section *sec,
		      struct place **v, size_t *n)
{
	unsigned int w = im->arch->addr_size;
	struct section *rsec;
	const uint8_t *bytes;
	struct relocs rel;
	struct reloc r;
	bool *seen;
	size_t j;
	int ret = -1;

	*v = NULL;
	*n = 0;
	if (sec->sh.sh_size % w)
		return lp_error(im->path, sec->name,
				"size 0x%llx is not a multiple of the entry size %u",
				(unsigned long long)sec->sh.sh_size, w);
	*n = sec->sh.sh_size / w;
	if (!*n)
		return 0;
	/* a corrupt size must not size an allocation: the bytes first */
	if (sec->sh.sh_type == SHT_NOBITS)
		return lp_error(im->path, sec->name,
				"%zu entries but the section has no bytes (SHT_NOBITS)",
				*n);
	bytes = image_section_bytes(im, sec);
	if (!bytes)
		return -1;
	*v = xcalloc(*n, sizeof(**v));
	rsec = image_relocs_of(im, sec);
	if (!rsec)
		return lp_error(im->path, sec->name,
				"%zu entries but no relocation section: entries of an object must be relocated",
				*n);
	if (image_relocs(im, rsec, &rel) < 0)
		return -1;
	seen = xcalloc(*n, sizeof(*seen));
	for (j = 0; j < rel.count; j++) {
		reloc_get(rel.layout, rel.base, j, &r);
		if (object_entry(im, rsec, j, &r, reloc_has_addend(rel.layout),
				 bytes, *n, seen, *v) < 0)
			goto out_free_seen;
	}
	for (j = 0; j < *n; j++)
		if (!seen[j]) {
			lp_error(im->path, sec->name,
				 "entry %zu (offset 0x%llx) has no relocation: it would hold a meaningless address",
				 j, (unsigned long long)j * w);
			goto out_free_seen;
		}
	ret = 0;
out_free_seen:
	free(seen);
	return ret;
}

void table_free(struct table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
