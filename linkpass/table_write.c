// SPDX-License-Identifier: GPL-2.0
/*
 * The table object, written directly with libelf (no assembler run).
 * Layout of the object:
 *   [1] __mcount_loc        PROGBITS, alloc (+write in a PIE), retain
 *   [2] .rela__mcount_loc   one absolute relocation per entry
 *   [3] .symtab             null, section symbol, the anchors (undefined)
 *   [4] .strtab
 *   [5] .note.GNU-stack     empty: the table needs no executable stack
 *   [6] .shstrtab
 * Entries are zero in the section; the value is in the relocation
 * addend (Rela), or in the entry itself on Rel targets (i386).
 */
#include "table_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

enum {
	SEC_TABLE = 1,
	SEC_RELOCS,
	SEC_SYMTAB,
	SEC_STRTAB,
	SEC_NOTE,
	SEC_SHSTRTAB,
	NR_OUT_SECS,
};

/* First symbol of the table object that is an anchor (after null and
 * the section symbol). */
#define FIRST_ANCHOR_SYM 2

/* A growable byte buffer for string tables. */
struct strbuf {
	char *p;
	size_t len, cap;
};

static size_t strbuf_add(struct strbuf *b, const char *s)
{
	size_t n = strlen(s) + 1, at = b->len;

	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return at;
}

static size_t anchor_index(const struct anchors *a, const struct symbol *s)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->list[i] == s)
			return i;
	return 0;	/* not reached: every used anchor is listed */
}

static bool table_writable(const struct image *im)
{
	/* a PIE's entries get dynamic relocations: keep them out of text */
	return im->ehdr.e_type == ET_DYN;
}

struct out_data {
	void *table, *relocs, *syms;
	size_t table_size, relocs_size, syms_size;
	size_t relsize, symsize;
	struct strbuf strtab, shstrtab;
	size_t name[NR_OUT_SECS];
};

static void put(void *dst, size_t off, const void *src, size_t n)
{
	memcpy((char *)dst + off, src, n);
}

/* Build every section's bytes in memory, in the file's layout. */
static void build(const struct image *im, const struct site *sites, size_t n,
		  const struct anchors *a, struct out_data *d)
{
	const struct arch *arch = im->arch;
	bool is64 = arch->elfclass == ELFCLASS64;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->relsize = is64 ? (arch->rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel))
			  : (arch->rela ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel));
	d->symsize = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	d->table_size = n * arch->addr_size;
	d->relocs_size = n * d->relsize;
	d->syms_size = (FIRST_ANCHOR_SYM + a->n) * d->symsize;
	d->table = xcalloc(1, d->table_size);
	d->relocs = xcalloc(1, d->relocs_size);
	d->syms = xcalloc(1, d->syms_size);

	strbuf_add(&d->strtab, "");
	strbuf_add(&d->shstrtab, "");
	d->name[SEC_TABLE] = strbuf_add(&d->shstrtab, MCOUNT_SECTION);
	d->name[SEC_RELOCS] = strbuf_add(&d->shstrtab, arch->rela ?
					 ".rela" MCOUNT_SECTION :
					 ".rel" MCOUNT_SECTION);
	d->name[SEC_SYMTAB] = strbuf_add(&d->shstrtab, ".symtab");
	d->name[SEC_STRTAB] = strbuf_add(&d->shstrtab, ".strtab");
	d->name[SEC_NOTE] = strbuf_add(&d->shstrtab, ".note.GNU-stack");
	d->name[SEC_SHSTRTAB] = strbuf_add(&d->shstrtab, ".shstrtab");

	/* symbols: [0] null, [1] the table's section symbol, then anchors */
	for (i = 0; i < FIRST_ANCHOR_SYM + a->n; i++) {
		uint32_t name = 0;
		uint8_t info;
		uint16_t shndx = SHN_UNDEF;

		if (i == 0)
			continue;
		if (i == 1) {
			info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION);
			shndx = SEC_TABLE;
		} else {
			name = (uint32_t)strbuf_add(&d->strtab,
						    a->list[i - FIRST_ANCHOR_SYM]->name);
			info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE);
		}
		if (is64) {
			Elf64_Sym s = { .st_name = name, .st_info = info,
					.st_shndx = shndx };

			put(d->syms, i * sizeof(s), &s, sizeof(s));
		} else {
			Elf32_Sym s = { .st_name = name, .st_info = info,
					.st_shndx = shndx };

			put(d->syms, i * sizeof(s), &s, sizeof(s));
		}
	}

	/* entries: anchor + (site - anchor) */
	for (i = 0; i < n; i++) {
		const struct symbol *anc = a->by_shndx[sites[i].shndx];
		uint64_t sym = FIRST_ANCHOR_SYM + anchor_index(a, anc);
		int64_t addend = (int64_t)(sites[i].addr - anc->value);
		uint64_t where = i * arch->addr_size;

		if (is64 && arch->rela) {
			Elf64_Rela r = { .r_offset = where,
					 .r_info = ELF64_R_INFO(sym, arch->abs_reloc),
					 .r_addend = addend };

			put(d->relocs, i * sizeof(r), &r, sizeof(r));
		} else if (!is64 && !arch->rela) {
			Elf32_Rel r = { .r_offset = (Elf32_Addr)where,
					.r_info = ELF32_R_INFO(sym, arch->abs_reloc) };
			int32_t v = (int32_t)addend;

			put(d->relocs, i * sizeof(r), &r, sizeof(r));
			put(d->table, where, &v, sizeof(v));
		}
	}
}

static void out_data_free(struct out_data *d)
{
	free(d->table);
	free(d->relocs);
	free(d->syms);
	free(d->strtab.p);
	free(d->shstrtab.p);
}

Elf_Scn *table_add_section(Elf *e, const char *path, const GElf_Shdr *tmpl,
			   void *buf, size_t size, size_t align)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d;
	GElf_Shdr sh;

	if (!scn || !(d = elf_newdata(scn)) || !gelf_getshdr(scn, &sh)) {
		lp_elf_error(path, "new section", "cannot add the section");
		return NULL;
	}
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = align;
	d->d_version = EV_CURRENT;
	sh = *tmpl;
	sh.sh_size = size;
	sh.sh_addralign = align;
	if (!gelf_update_shdr(scn, &sh)) {
		lp_elf_error(path, "new section", "cannot update the section header");
		return NULL;
	}
	return scn;
}

int table_write_elf(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out)
{
	const struct arch *arch = im->arch;
	struct outfile of;
	struct out_data d;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf *e;
	int ret = -1;

	build(im, sites, n, a, &d);
	if (out_open(&of, out) < 0)
		goto out_free_data;
	e = elf_begin(of.fd, ELF_C_WRITE, NULL);
	if (!e) {
		lp_elf_error(out, "ELF header", "elf_begin");
		goto out_abort;
	}
	if (!gelf_newehdr(e, arch->elfclass) || !gelf_getehdr(e, &eh)) {
		lp_elf_error(out, "ELF header", "cannot create");
		goto out_end;
	}
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	/* GNU ld honours SHF_GNU_RETAIN only in ELFOSABI_GNU objects */
	eh.e_ident[EI_OSABI] = ELFOSABI_GNU;
	eh.e_type = ET_REL;
	eh.e_machine = arch->machine;
	eh.e_version = EV_CURRENT;
	eh.e_shstrndx = SEC_SHSTRTAB;
	if (!gelf_update_ehdr(e, &eh)) {
		lp_elf_error(out, "ELF header", "cannot write");
		goto out_end;
	}

	memset(&sh, 0, sizeof(sh));
	sh.sh_name = d.name[SEC_TABLE];
	sh.sh_type = SHT_PROGBITS;
	sh.sh_flags = SHF_ALLOC | SHF_GNU_RETAIN |
		      (table_writable(im) ? SHF_WRITE : 0);
	sh.sh_entsize = arch->addr_size;
	if (!table_add_section(e, out, &sh, d.table, d.table_size, arch->addr_size))
		goto out_end;

	memset(&sh, 0, sizeof(sh));
	sh.sh_name = d.name[SEC_RELOCS];
	sh.sh_type = arch->rela ? SHT_RELA : SHT_REL;
	sh.sh_flags = SHF_INFO_LINK;
	sh.sh_link = SEC_SYMTAB;
	sh.sh_info = SEC_TABLE;
	sh.sh_entsize = d.relsize;
	if (!table_add_section(e, out, &sh, d.relocs, d.relocs_size, arch->addr_size))
		goto out_end;

	memset(&sh, 0, sizeof(sh));
	sh.sh_name = d.name[SEC_SYMTAB];
	sh.sh_type = SHT_SYMTAB;
	sh.sh_link = SEC_STRTAB;
	sh.sh_info = FIRST_ANCHOR_SYM;	/* first non-local symbol */
	sh.sh_entsize = d.symsize;
	if (!table_add_section(e, out, &sh, d.syms, d.syms_size, arch->addr_size))
		goto out_end;

	memset(&sh, 0, sizeof(sh));
	sh.sh_name = d.name[SEC_STRTAB];
	sh.sh_type = SHT_STRTAB;
	if (!table_add_section(e, out, &sh, d.strtab.p, d.strtab.len, 1))
		goto out_end;

	memset(&sh, 0, sizeof(sh));
	sh.sh_name = d.name[SEC_NOTE];
	sh.sh_type = SHT_PROGBITS;
	if (!table_add_section(e, out, &sh, NULL, 0, 1))
		goto out_end;

	memset(&sh, 0, sizeof(sh));
	sh.sh_name = d.name[SEC_SHSTRTAB];
	sh.sh_type = SHT_STRTAB;
	if (!table_add_section(e, out, &sh, d.shstrtab.p, d.shstrtab.len, 1))
		goto out_end;

	if (elf_update(e, ELF_C_WRITE) < 0) {
		lp_elf_error(out, "write", "cannot write the object");
		goto out_end;
	}
	ret = 0;
out_end:
	elf_end(e);
out_abort:
	if (ret == 0)
		ret = out_commit(&of);
	else
		out_abort(&of);
out_free_data:
	out_data_free(&d);
	return ret;
}

int table_write_asm(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out)
{
	const struct arch *arch = im->arch;
	struct outfile of;
	FILE *f;
	size_t i;
	int ret = 0;

	if (out_open(&of, out) < 0)
		return -1;
	f = fdopen(dup(of.fd), "w");
	if (!f) {
		lp_error(out, "write", "fdopen: %s", strerror(errno));
		out_abort(&of);
		return -1;
	}
	fprintf(f, "/* ftrace call sites of %s: %zu entries, made by linkpass */\n",
		im->path, n);
	fprintf(f, "\t.section %s,\"%sR\",@progbits\n", MCOUNT_SECTION,
		table_writable(im) ? "aw" : "a");
	fprintf(f, "\t.balign %u\n", arch->addr_size);
	for (i = 0; i < n; i++) {
		const struct symbol *anc = a->by_shndx[sites[i].shndx];
		int64_t off = (int64_t)(sites[i].addr - anc->value);

		fprintf(f, "\t%s %s %c 0x%llx\n", arch->asm_word, anc->name,
			off < 0 ? '-' : '+',
			(unsigned long long)(off < 0 ? -(uint64_t)off : (uint64_t)off));
	}
	fprintf(f, "\t.section .note.GNU-stack,\"\",@progbits\n");
	if (fflush(f) || ferror(f))
		ret = lp_error(out, "write", "%s", strerror(errno));
	fclose(f);
	if (ret)
		out_abort(&of);
	else
		ret = out_commit(&of);
	return ret;
}
