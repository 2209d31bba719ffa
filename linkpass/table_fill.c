// SPDX-License-Identifier: GPL-2.0
/*
 * The full tool's table sections (the table_sections hook of hooks.h):
 * made and written a piece at a time during elfw_commit(), in one small
 * buffer that stays in cache: a kernel-sized table held whole cost a
 * page fault per 4 KiB and a copy out of memory the fill had just left.
 */
#include <stdlib.h>
#include <string.h>

#include "elfwrite.h"
#include "extras.h"
#include "table_write.h"

#define FILL_PIECE ((size_t)128 << 10)

/* Make entries [@first, @first + @n) of a section at @out. */
typedef void fill_fn(const struct elfw *w, const struct table_parts *t,
		     size_t first, size_t n, void *out);

/* One loop per relocation layout, the layout a constant in each. */
static __always_inline void
fill_relocs_l(enum reloc_layout l, const struct elfw *w,
	      const struct table_parts *t, size_t first, size_t n, void *out)
{
	size_t i;

	for (i = first; i < first + n; i++)
		addr_reloc_put(l, w->arch->addr_size, w->arch->abs_reloc, out,
			       i - first, i, t->sym_of[t->sites[i].shndx],
			       table_addend(t, i));
}

/* .rela__mcount_loc (or .rel): one absolute relocation per entry. */
static void fill_relocs(const struct elfw *w, const struct table_parts *t,
			size_t first, size_t n, void *out)
{
	RELOC_DISPATCH(reloc_layout_pick(w->arch->elfclass, w->arch->rela),
		       fill_relocs_l, w, t, first, n, out);
}

/* __mcount_loc: zeros (Rela), or each entry's addend (Rel). */
static void fill_entries(const struct elfw *w, const struct table_parts *t,
			 size_t first, size_t n, void *out)
{
	enum reloc_layout l = reloc_layout_pick(w->arch->elfclass,
						w->arch->rela);
	size_t i;

	if (reloc_has_addend(l)) {
		memset(out, 0, n * w->arch->addr_size);
		return;
	}
	for (i = first; i < first + n; i++)
		addr_value_put(l, w->arch->addr_size, out, i - first,
			       table_addend(t, i));
}

static int write_filled(struct elfw *w, const struct elfw_sec *s,
			fill_fn *fill)
{
	size_t es = s->sh.sh_entsize, per = FILL_PIECE / es ? FILL_PIECE / es : 1;
	size_t n = s->sh.sh_size / es, i, k;
	uint8_t *piece = xmalloc(per * es);
	int ret = 0;

	for (i = 0; i < n && !ret; i += k) {
		k = n - i < per ? n - i : per;
		fill(w, s->ctx, i, k, piece);
		ret = write_all(w->of.fd, piece, k * es, w->path);
	}
	free(piece);
	return ret;
}

static int write_entries(struct elfw *w, const struct elfw_sec *s)
{
	return write_filled(w, s, fill_entries);
}

static int write_relocs(struct elfw *w, const struct elfw_sec *s)
{
	return write_filled(w, s, fill_relocs);
}

/* Section @name of @t->n entries, written by @write. */
static size_t add_filled(struct elfw *w, const char *name,
			 const GElf_Shdr *tmpl, struct table_parts *t,
			 int (*write)(struct elfw *w, const struct elfw_sec *s))
{
	size_t idx = elfw_add_section(w, name, tmpl, NULL,
				      t->n * tmpl->sh_entsize,
				      w->arch->addr_size);

	w->secs[idx].write = write;
	w->secs[idx].ctx = t;
	return idx;
}

size_t table_fill_sections(struct elfw *w, struct table_parts *t)
{
	add_filled(w, MCOUNT_SECTION, &t->table, t, write_entries);
	return add_filled(w, t->relname, &t->rel, t, write_relocs);
}
