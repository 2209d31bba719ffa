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

/* Entry i is anchor + (site i - anchor); sym_of: the anchor's number. */
struct table_fill {
	const struct site *sites;
	const struct anchors *a;
	uint32_t *sym_of;	/* by section: the anchor's symbol */
	enum reloc_layout layout;
	unsigned int width;
	uint32_t type;
};

static __always_inline int64_t
entry_addend(const struct table_fill *f, size_t i)
{
	const struct site *s = &f->sites[i];

	return (int64_t)(s->addr - f->a->by_shndx[s->shndx]->value);
}

/* One loop per relocation layout, the layout a constant in each. */
static __always_inline void
fill_relocs_l(enum reloc_layout l, const struct table_fill *f, size_t first,
	      size_t n, void *out)
{
	size_t i;

	for (i = first; i < first + n; i++)
		addr_reloc_put(l, f->width, f->type, out, i - first, i,
			       f->sym_of[f->sites[i].shndx],
			       entry_addend(f, i));
}

/* .rela__mcount_loc (or .rel): one absolute relocation per entry. */
static void fill_relocs(void *ctx, size_t first, size_t n, void *out)
{
	const struct table_fill *f = ctx;

	RELOC_DISPATCH(f->layout, fill_relocs_l, f, first, n, out);
}

/* __mcount_loc: zeros (Rela), or each entry's addend (Rel). */
static void fill_entries(void *ctx, size_t first, size_t n, void *out)
{
	const struct table_fill *f = ctx;
	size_t i;

	if (reloc_has_addend(f->layout)) {
		memset(out, 0, n * f->width);
		return;
	}
	for (i = first; i < first + n; i++)
		addr_value_put(f->layout, f->width, out, i - first,
			       entry_addend(f, i));
}

/* Anchors are numbered in a->list order. */
static void fill_init(struct table_fill *f, const struct image *im,
		      const struct site *sites, const struct anchors *a)
{
	const struct arch *arch = im->arch;
	size_t i, j;

	f->sites = sites;
	f->a = a;
	f->sym_of = xcalloc(im->nsecs, sizeof(*f->sym_of));
	for (i = 0; i < im->nsecs; i++)
		for (j = 0; a->by_shndx[i] && j < a->n; j++)
			if (a->list[j] == a->by_shndx[i])
				f->sym_of[i] = (uint32_t)(FIRST_ANCHOR_SYM + j);
	f->layout = reloc_layout_pick(arch->elfclass, arch->rela);
	f->width = arch->addr_size;
	f->type = arch->abs_reloc;
}

static int add_sections(struct elfw *w, const struct image *im, size_t n,
			struct table_fill *f, struct elfw_syms *syms)
{
	const struct arch *arch = im->arch;
	GElf_Shdr table = {
		.sh_type = SHT_PROGBITS,
		.sh_flags = SHF_ALLOC | SHF_GNU_RETAIN |
			    (table_writable(im) ? SHF_WRITE : 0),
		.sh_entsize = arch->addr_size,
	};
	GElf_Shdr rel = {
		.sh_type = arch->rela ? SHT_RELA : SHT_REL,
		.sh_flags = SHF_INFO_LINK,
		.sh_info = SEC_TABLE,
		.sh_entsize = reloc_entsize(f->layout),
	};
	GElf_Shdr note = { .sh_type = SHT_PROGBITS };
	size_t reli, symi;

	if (!elfw_add_filled_section(w, MCOUNT_SECTION, &table, n,
				     arch->addr_size, fill_entries, f))
		return -1;
	reli = elfw_add_filled_section(w, arch->rela ? ".rela" MCOUNT_SECTION :
				       ".rel" MCOUNT_SECTION, &rel, n,
				       arch->addr_size, fill_relocs, f);
	symi = elfw_add_symtab(w, syms, FIRST_ANCHOR_SYM);
	if (!reli || !symi ||
	    !elfw_add_section(w, ".note.GNU-stack", &note, NULL, 0, 1))
		return -1;
	elfw_shdr(w, reli)->sh_link = (uint32_t)symi;
	return 0;
}

/* The entries are made as the object is written, never held whole. */
int table_write_elf(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out,
		    const struct out_gate *gate)
{
	struct table_fill f;
	struct elfw_syms syms;
	struct elfw w;
	int ret = -1;

	if (addr_widths_ok(im->arch, out) < 0)
		return -1;
	fill_init(&f, im, sites, a);
	build_symbols(a, &syms, im->arch->elfclass);
	/* GNU ld honours SHF_GNU_RETAIN only in ELFOSABI_GNU objects */
	if (elfw_new(&w, out, im->arch, ELFOSABI_GNU) < 0)
		goto out_free_syms;
	/* riscv ld refuses to mix float ABIs: take the image's */
	w.e_flags = im->ehdr.e_flags;
	w.of.gate = gate;
	if (add_sections(&w, im, n, &f, &syms) < 0) {
		elfw_abort(&w);
		goto out_free_syms;
	}
	ret = elfw_commit(&w);
out_free_syms:
	elfw_syms_free(&syms);
	free(f.sym_of);
	return ret;
}
