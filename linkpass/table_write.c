// SPDX-License-Identifier: GPL-2.0
/*
 * The table object, written through elfwrite: [1] __mcount_loc (alloc,
 * +write in a PIE, retain), [2] its relocations, one absolute one per
 * entry against the anchors (undefined in [3] .symtab), [4] .strtab,
 * [5] an empty .note.GNU-stack, [6] .shstrtab.  Entries are zero in
 * the section and the value is in the addend (Rela), or in the entry
 * on Rel targets (i386).
 */
#include "table_write.h"

#include <stdlib.h>
#include <string.h>

#include "elfwrite.h"

/*
 * SHF_GNU_RETAIN: keep the section under --gc-sections; nothing refers
 * to it but __start_/__stop_ symbols, which keep no section alive
 * under -z start-stop-gc.
 */
#ifndef SHF_GNU_RETAIN
#define SHF_GNU_RETAIN BIT(21)
#endif

/* The table's two big sections, made as they are written. */
struct table_parts {
	const struct site *sites;
	size_t n;
	const struct anchors *a;
	const uint32_t *sym_of;	/* by section: its anchor's symbol */
	GElf_Shdr table, rel;
	const char *relname;
};

/* Entry @i is its anchor + this. */
static inline int64_t table_addend(const struct table_parts *t, size_t i)
{
	const struct site *s = &t->sites[i];

	return (int64_t)(s->addr - t->a->by_shndx[s->shndx]->value);
}

#define SEC_TABLE 1		/* the table section's index */
#define FIRST_ANCHOR_SYM 2	/* after null and the section symbol */

bool table_writable(const struct image *im)
{
	/* a PIE's entries get dynamic relocations: keep them out of text */
	return im->ehdr.e_type == ET_DYN;
}

/*
 * Hidden for a shared library's __ehdr_start: the link must resolve it
 * inside the image, and the entries become RELATIVE relocations.
 */
uint8_t anchor_ref_vis(const struct symbol *s)
{
	return s->vis == STV_HIDDEN ? STV_HIDDEN : STV_DEFAULT;
}

/* Symbols: [0] null, [1] the table's section symbol, then the anchors. */
static void build_symbols(const struct anchors *a, struct elfw_syms *syms,
			  uint8_t elfclass)
{
	size_t i;

	elfw_syms_init(syms, elfclass);
	elfw_sym_add(syms, NULL, ELF64_ST_INFO(STB_LOCAL, STT_SECTION),
		     STV_DEFAULT, SEC_TABLE);
	for (i = 0; i < a->n; i++)
		elfw_sym_add(syms, a->list[i]->name,
			     ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE),
			     anchor_ref_vis(a->list[i]), SHN_UNDEF);
}

/* By section: the number of its anchor's symbol, in a->list order. */
static uint32_t *anchor_syms(const struct image *im, const struct anchors *a)
{
	uint32_t *sym_of = xcalloc(im->nsecs, sizeof(*sym_of));
	size_t i, j;

	for (i = 0; i < im->nsecs; i++)
		for (j = 0; a->by_shndx[i] && j < a->n; j++)
			if (a->list[j] == a->by_shndx[i])
				sym_of[i] = (uint32_t)(FIRST_ANCHOR_SYM + j);
	return sym_of;
}

/*
 * The two big sections, made and written a piece at a time during
 * elfw_commit(), in one small buffer that stays in cache: a
 * kernel-sized table held whole cost a page fault per 4 KiB and a copy
 * out of memory the fill had just left.
 */
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

	/* the piece is zeroed once (write_filled()) and stays so */
	if (reloc_has_addend(l))
		return;
	for (i = first; i < first + n; i++)
		addr_value_put(l, w->arch->addr_size, out, i - first,
			       table_addend(t, i));
}

static int write_filled(struct elfw *w, const struct elfw_sec *s,
			fill_fn *fill)
{
	size_t es = s->sh.sh_entsize, per = FILL_PIECE / es ? FILL_PIECE / es : 1;
	size_t n = s->sh.sh_size / es, i, k;
	uint8_t *piece = xcalloc(per, es);
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

/* __mcount_loc and its relocation section; the latter's index */
static size_t table_fill_sections(struct elfw *w, struct table_parts *t)
{
	add_filled(w, MCOUNT_SECTION, &t->table, t, write_entries);
	return add_filled(w, t->relname, &t->rel, t, write_relocs);
}

static int add_sections(struct elfw *w, struct table_parts *t,
			struct elfw_syms *syms)
{
	GElf_Shdr note = { .sh_type = SHT_PROGBITS };
	size_t reli, symi;

	reli = table_fill_sections(w, t);
	symi = elfw_add_symtab(w, syms, FIRST_ANCHOR_SYM);
	if (!reli || !symi ||
	    !elfw_add_section(w, ".note.GNU-stack", &note, NULL, 0, 1))
		return -1;
	w->secs[reli].sh.sh_link = (uint32_t)symi;
	return 0;
}

int table_write_elf(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out,
		    const struct out_gate *gate)
{
	const struct arch *arch = im->arch;
	struct table_parts t = {
		.sites = sites, .n = n, .a = a,
		.table = {
			.sh_type = SHT_PROGBITS,
			.sh_flags = SHF_ALLOC | SHF_GNU_RETAIN |
				    (table_writable(im) ? SHF_WRITE : 0),
			.sh_entsize = arch->addr_size,
		},
		.rel = {
			.sh_type = arch->rela ? SHT_RELA : SHT_REL,
			.sh_flags = SHF_INFO_LINK,
			.sh_info = SEC_TABLE,
			.sh_entsize = reloc_entsize(reloc_layout_pick(arch->elfclass,
								      arch->rela)),
		},
		.relname = arch->rela ? ".rela" MCOUNT_SECTION :
			   ".rel" MCOUNT_SECTION,
	};
	struct elfw_syms syms;
	uint32_t *sym_of;
	struct elfw w;
	int ret = -1;

	sym_of = anchor_syms(im, a);
	t.sym_of = sym_of;
	build_symbols(a, &syms, arch->elfclass);
	/* GNU ld honours SHF_GNU_RETAIN only in ELFOSABI_GNU objects */
	if (elfw_new(&w, out, arch, ELFOSABI_GNU) < 0)
		goto out_free_syms;
	/* riscv ld refuses to mix float ABIs: take the image's */
	w.e_flags = im->ehdr.e_flags;
	w.of.gate = gate;
	if (add_sections(&w, &t, &syms) < 0) {
		elfw_abort(&w);
		goto out_free_syms;
	}
	ret = elfw_commit(&w);
out_free_syms:
	elfw_syms_free(&syms);
	free(sym_of);
	return ret;
}
