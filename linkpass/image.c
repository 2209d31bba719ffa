// SPDX-License-Identifier: GPL-2.0
/*
 * Opening an ELF image: header, sections and symbols, each checked
 * before use so bad input gets a precise error instead of a crash.
 */
#include "image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "relocs.h"
#include "util.h"

const char *image_place(char *buf, size_t len, const struct section *s,
			uint64_t off)
{
	snprintf(buf, len, "%s+0x%llx", s ? s->name : "?",
		 (unsigned long long)off);
	return buf;
}

static int check_header(struct image *im, enum image_kind kind)
{
	const char *p = im->path;
	uint8_t cls, data;

	if (elf_kind(im->elf) != ELF_K_ELF)
		return lp_error(p, NULL, "not an ELF file");
	if (!gelf_getehdr(im->elf, &im->ehdr))
		return lp_elf_error(p, "ELF header", "cannot read");
	cls = im->ehdr.e_ident[EI_CLASS];
	data = im->ehdr.e_ident[EI_DATA];
	if (data != ELFDATA2LSB)
		return lp_error(p, "ELF header",
				"big-endian or unknown byte order (EI_DATA %u) is not supported",
				data);
	im->arch = arch_find(im->ehdr.e_machine, cls);
	if (!im->arch)
		return lp_error(p, "ELF header",
				"unsupported machine %u with ELF class %u (supported: x86_64, i386)",
				im->ehdr.e_machine, cls);
	if (kind == IMAGE_LINKED && im->ehdr.e_type != ET_EXEC &&
	    im->ehdr.e_type != ET_DYN)
		return lp_error(p, "ELF header",
				"e_type %u is not a linked image (ET_EXEC or ET_DYN)%s",
				im->ehdr.e_type,
				im->ehdr.e_type == ET_REL ?
				"; for an object file use 'linkpass obj'" : "");
	if (kind == IMAGE_OBJECT && im->ehdr.e_type != ET_REL)
		return lp_error(p, "ELF header",
				"e_type %u is not a relocatable object (ET_REL)",
				im->ehdr.e_type);
	return 0;
}

static int read_sections(struct image *im)
{
	const char *p = im->path;
	size_t shstrndx, i;
	char place[64];

	if (elf_getshdrnum(im->elf, &im->nsecs) < 0)
		return lp_elf_error(p, "section headers", "cannot count");
	if (elf_getshdrstrndx(im->elf, &shstrndx) < 0)
		return lp_elf_error(p, "section headers",
				    "cannot find the section name table");
	if (im->nsecs && shstrndx >= im->nsecs)
		return lp_error(p, "ELF header",
				"e_shstrndx %zu out of range (%zu sections)",
				shstrndx, im->nsecs);
	im->secs = xcalloc(im->nsecs, sizeof(*im->secs));
	for (i = 0; i < im->nsecs; i++) {
		struct section *s = &im->secs[i];

		snprintf(place, sizeof(place), "section header %zu", i);
		s->idx = i;
		s->scn = elf_getscn(im->elf, i);
		if (!s->scn || !gelf_getshdr(s->scn, &s->sh))
			return lp_elf_error(p, place, "cannot read");
		if (i == 0) {
			s->name = "";
			continue;
		}
		s->name = elf_strptr(im->elf, shstrndx, s->sh.sh_name);
		if (!s->name)
			return lp_error(p, place, "sh_name %u out of range",
					s->sh.sh_name);
		if (s->sh.sh_type != SHT_NOBITS &&
		    (s->sh.sh_offset > im->file_size ||
		     s->sh.sh_size > im->file_size - s->sh.sh_offset))
			return lp_error(p, s->name,
					"section (offset 0x%llx, size 0x%llx) extends past the end of the file (0x%llx bytes)",
					(unsigned long long)s->sh.sh_offset,
					(unsigned long long)s->sh.sh_size,
					(unsigned long long)im->file_size);
	}
	return 0;
}

const uint8_t *image_section_bytes(struct image *im, struct section *s)
{
	Elf_Data *d;

	if (s->loaded)
		return s->bytes;
	if (s->sh.sh_type == SHT_NOBITS || s->sh.sh_size == 0) {
		s->loaded = true;
		s->bytes = NULL;
		return NULL;
	}
	if (s->sh.sh_flags & SHF_COMPRESSED) {
		lp_error(im->path, s->name,
			 "section is compressed (SHF_COMPRESSED); linkpass needs it uncompressed");
		return NULL;
	}
	/*
	 * elf_rawdata() hands back the bytes as they are in the mapped file,
	 * without a conversion copy; callers decode with memcpy.
	 */
	d = elf_rawdata(s->scn, NULL);
	if (!d || !d->d_buf || d->d_size != s->sh.sh_size) {
		lp_elf_error(im->path, s->name, "cannot read section data");
		return NULL;
	}
	s->bytes = d->d_buf;
	s->loaded = true;
	return s->bytes;
}

static int read_symbols(struct image *im)
{
	const char *p = im->path;
	struct section *shndx_sec = NULL;
	Elf_Data *d, *xd = NULL;
	size_t i, n, entsize;
	char place[64];

	for (i = 1; i < im->nsecs; i++) {
		if (im->secs[i].sh.sh_type == SHT_SYMTAB) {
			if (im->symtab)
				return lp_error(p, im->secs[i].name,
						"more than one symbol table");
			im->symtab = &im->secs[i];
		}
	}
	if (!im->symtab)
		return 0;

	entsize = gelf_fsize(im->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (im->symtab->sh.sh_entsize != entsize)
		return lp_error(p, im->symtab->name,
				"sh_entsize %llu, expected %zu",
				(unsigned long long)im->symtab->sh.sh_entsize,
				entsize);
	if (im->symtab->sh.sh_size % entsize)
		return lp_error(p, im->symtab->name,
				"size 0x%llx is not a multiple of the entry size",
				(unsigned long long)im->symtab->sh.sh_size);
	if (im->symtab->sh.sh_link == 0 ||
	    im->symtab->sh.sh_link >= im->nsecs ||
	    im->secs[im->symtab->sh.sh_link].sh.sh_type != SHT_STRTAB)
		return lp_error(p, im->symtab->name,
				"sh_link %u is not a string table",
				im->symtab->sh.sh_link);
	im->strtab = &im->secs[im->symtab->sh.sh_link];
	if (im->strtab->sh.sh_flags & SHF_COMPRESSED ||
	    im->symtab->sh.sh_flags & SHF_COMPRESSED)
		return lp_error(p, im->symtab->name,
				"symbol table is compressed (SHF_COMPRESSED)");

	for (i = 1; i < im->nsecs; i++)
		if (im->secs[i].sh.sh_type == SHT_SYMTAB_SHNDX &&
		    im->secs[i].sh.sh_link == im->symtab->idx)
			shndx_sec = &im->secs[i];

	d = elf_getdata(im->symtab->scn, NULL);
	if (!d)
		return lp_elf_error(p, im->symtab->name, "cannot read symbols");
	if (shndx_sec) {
		xd = elf_getdata(shndx_sec->scn, NULL);
		if (!xd)
			return lp_elf_error(p, shndx_sec->name, "cannot read");
	}
	n = im->symtab->sh.sh_size / entsize;
	im->syms = xcalloc(n, sizeof(*im->syms));
	im->nsyms = n;
	for (i = 0; i < n; i++) {
		struct symbol *s = &im->syms[i];
		GElf_Sym sym;
		Elf32_Word xndx = 0;

		snprintf(place, sizeof(place), "%s entry %zu",
			 im->symtab->name, i);
		if (!gelf_getsymshndx(d, xd, (int)i, &sym, &xndx))
			return lp_elf_error(p, place, "cannot read symbol");
		s->name = elf_strptr(im->elf, im->strtab->idx, sym.st_name);
		if (!s->name)
			return lp_error(p, place, "st_name %u out of range",
					sym.st_name);
		s->value = sym.st_value;
		s->size = sym.st_size;
		s->type = GELF_ST_TYPE(sym.st_info);
		s->bind = GELF_ST_BIND(sym.st_info);
		s->vis = GELF_ST_VISIBILITY(sym.st_other);
		s->shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
		if (s->shndx >= im->nsecs && s->shndx < SHN_LORESERVE)
			return lp_error(p, place,
					"symbol '%s' has section index %u out of range (%zu sections)",
					s->name, s->shndx, im->nsecs);
	}
	return 0;
}

int image_open(struct image *im, const char *path, enum image_kind kind)
{
	struct stat st;

	memset(im, 0, sizeof(*im));
	im->path = path;
	im->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return lp_elf_error(path, NULL, "libelf initialisation failed");
	im->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (im->fd < 0)
		return lp_error(path, NULL, "cannot open: %s", strerror(errno));
	if (fstat(im->fd, &st) < 0)
		return lp_error(path, NULL, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return lp_error(path, NULL, "not a regular file");
	im->file_size = (uint64_t)st.st_size;
	im->elf = elf_begin(im->fd, ELF_C_READ_MMAP, NULL);
	if (!im->elf)
		return lp_elf_error(path, NULL, "cannot read as ELF");
	if (check_header(im, kind) < 0 || read_sections(im) < 0 ||
	    read_symbols(im) < 0)
		return -1;
	return 0;
}

void image_close(struct image *im)
{
	free(im->syms);
	free(im->secs);
	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	memset(im, 0, sizeof(*im));
	im->fd = -1;
}

struct section *image_find_section(struct image *im, const char *name)
{
	size_t i;

	for (i = 1; i < im->nsecs; i++)
		if (!strcmp(im->secs[i].name, name))
			return &im->secs[i];
	return NULL;
}

struct section *image_section_at(struct image *im, uint64_t addr)
{
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		const GElf_Shdr *sh = &im->secs[i].sh;

		if ((sh->sh_flags & SHF_ALLOC) && addr >= sh->sh_addr &&
		    addr - sh->sh_addr < sh->sh_size)
			return &im->secs[i];
	}
	return NULL;
}

struct symbol *image_find_symbol(struct image *im, const char *name)
{
	size_t i;

	for (i = 1; i < im->nsyms; i++)
		if (im->syms[i].shndx != SHN_UNDEF &&
		    !strcmp(im->syms[i].name, name))
			return &im->syms[i];
	return NULL;
}

bool image_is_code_relocs(const struct image *im, const struct section *s)
{
	const struct section *t;

	if (s->sh.sh_type != SHT_RELA && s->sh.sh_type != SHT_REL)
		return false;
	/* dynamic relocations (.rela.dyn, .rela.plt) are for the loader */
	if (s->sh.sh_flags & SHF_ALLOC)
		return false;
	if (s->sh.sh_info == 0 || s->sh.sh_info >= im->nsecs)
		return false;
	t = &im->secs[s->sh.sh_info];
	return (t->sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
	       (SHF_ALLOC | SHF_EXECINSTR);
}

int image_relocs(struct image *im, struct section *rsec, struct relocs *r)
{
	enum reloc_layout l = reloc_layout_of(im, rsec);
	size_t entsize = reloc_entsize(l);
	const char *p = im->path;

	memset(r, 0, sizeof(*r));
	r->rsec = rsec;
	if (rsec->sh.sh_info == 0 || rsec->sh.sh_info >= im->nsecs)
		return lp_error(p, rsec->name, "sh_info %u out of range (%zu sections)",
				rsec->sh.sh_info, im->nsecs);
	r->target = &im->secs[rsec->sh.sh_info];
	if (!im->symtab || rsec->sh.sh_link != im->symtab->idx)
		return lp_error(p, rsec->name,
				"sh_link %u is not the symbol table",
				rsec->sh.sh_link);
	if (rsec->sh.sh_entsize != entsize)
		return lp_error(p, rsec->name, "sh_entsize %llu, expected %zu",
				(unsigned long long)rsec->sh.sh_entsize, entsize);
	if (rsec->sh.sh_size % entsize)
		return lp_error(p, rsec->name,
				"size 0x%llx is not a multiple of the entry size %zu",
				(unsigned long long)rsec->sh.sh_size, entsize);
	r->count = rsec->sh.sh_size / entsize;
	if (!r->count)
		return 0;
	r->base = image_section_bytes(im, rsec);
	return r->base ? 0 : -1;
}
