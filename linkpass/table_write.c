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
#include "hooks.h"

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

static int add_sections(struct elfw *w, const struct image *im,
			struct table_parts *t, const struct addr_table *at,
			struct elfw_syms *syms)
{
	size_t align = im->arch->addr_size, reli, symi;
	GElf_Shdr note = { .sh_type = SHT_PROGBITS };

	if (extras()->table_sections)
		reli = extras()->table_sections(w, t);
	else
		reli = !elfw_add_section(w, MCOUNT_SECTION, &t->table, at->bytes,
					 at->bytes_size, align) ? 0 :
		       elfw_add_section(w, t->relname, &t->rel, at->relocs,
					at->relocs_size, align);
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
	struct addr_table at = { 0 };
	struct elfw_syms syms;
	uint32_t *sym_of;
	struct elfw w;
	size_t i;
	int ret = -1;

	if (!extras()->table_sections)
		addr_table_init(&at, arch, n);
	sym_of = anchor_syms(im, a);
	t.sym_of = sym_of;
	for (i = 0; !extras()->table_sections && i < n; i++)
		addr_table_put(&at, i, sym_of[sites[i].shndx],
			       table_addend(&t, i));
	build_symbols(a, &syms, arch->elfclass);
	/* GNU ld honours SHF_GNU_RETAIN only in ELFOSABI_GNU objects */
	if (elfw_new(&w, out, arch, ELFOSABI_GNU) < 0)
		goto out_free_syms;
	/* riscv ld refuses to mix float ABIs: take the image's */
	w.e_flags = im->ehdr.e_flags;
	w.of.gate = gate;
	if (add_sections(&w, im, &t, &at, &syms) < 0) {
		elfw_abort(&w);
		goto out_free_syms;
	}
	ret = elfw_commit(&w);
out_free_syms:
	elfw_syms_free(&syms);
	addr_table_free(&at);
	free(sym_of);
	return ret;
}
