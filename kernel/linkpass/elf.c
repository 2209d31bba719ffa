// SPDX-License-Identifier: GPL-2.0
/*
 * A small reader of the 64-bit little-endian ELF files the kernel's
 * linkers write: the file is mapped once, section headers and symbols are
 * copied into flat arrays, everything else is read in place.  Offsets and
 * sizes taken from the file are checked against it before use, so that a
 * damaged file gives an error line, not a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linkpass.h"

/* "linkpass: FILE: PLACE: CAUSE", the one form of every error. */
int error(const struct image *im, const char *place, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "linkpass: %s: ", im->path);
	if (place)
		fprintf(stderr, "%s: ", place);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Does [off, off + len) lie inside the file? */
static bool in_file(const struct image *im, uint64_t off, uint64_t len)
{
	return off <= im->size && len <= im->size - off;
}

static const char *str_at(const struct image *im, const struct section *strtab,
			  uint32_t off)
{
	const char *s = (const char *)strtab->data + off;

	if (off >= strtab->sh.sh_size ||
	    !memchr(s, '\0', strtab->sh.sh_size - off))
		return NULL;
	return s;
}

static int read_header(struct image *im)
{
	const unsigned char *id = im->map;

	if (im->size < sizeof(im->eh) || memcmp(id, ELFMAG, SELFMAG))
		return error(im, NULL, "not an ELF file");
	if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB)
		return error(im, "ELF header",
			     "not 64-bit little-endian (x86_64, arm64 and riscv64 only)");
	memcpy(&im->eh, im->map, sizeof(im->eh));
	if (im->eh.e_type != ET_EXEC && im->eh.e_type != ET_DYN &&
	    im->eh.e_type != ET_REL)
		return error(im, "ELF header", "e_type %u is not a linked image or an object",
			     im->eh.e_type);
	im->rel = im->eh.e_type == ET_REL;
	im->arch = arch_find(im->eh.e_machine);
	if (!im->arch)
		return error(im, "ELF header", "e_machine %u is not x86_64, aarch64 or riscv64",
			     im->eh.e_machine);
	if (im->eh.e_shentsize != sizeof(Elf64_Shdr) || !im->eh.e_shnum ||
	    !in_file(im, im->eh.e_shoff,
		     (uint64_t)im->eh.e_shnum * sizeof(Elf64_Shdr)))
		return error(im, "ELF header", "no valid section header table");
	if (im->eh.e_shstrndx >= im->eh.e_shnum)
		return error(im, "ELF header", "e_shstrndx %u out of range",
			     im->eh.e_shstrndx);
	return 0;
}

static int read_sections(struct image *im)
{
	struct section *shstr;
	size_t i;

	im->nsecs = im->eh.e_shnum;
	im->secs = calloc(im->nsecs, sizeof(*im->secs));
	if (!im->secs)
		return error(im, NULL, "out of memory");
	for (i = 0; i < im->nsecs; i++) {
		struct section *s = &im->secs[i];

		memcpy(&s->sh, im->map + im->eh.e_shoff + i * sizeof(s->sh),
		       sizeof(s->sh));
		if (s->sh.sh_type == SHT_NOBITS || s->sh.sh_type == SHT_NULL)
			continue;
		if (!in_file(im, s->sh.sh_offset, s->sh.sh_size))
			return error(im, "section headers",
				     "section %zu lies outside the file", i);
		s->data = im->map + s->sh.sh_offset;
	}
	shstr = &im->secs[im->eh.e_shstrndx];
	for (i = 0; i < im->nsecs; i++) {
		im->secs[i].name = shstr->data ?
				   str_at(im, shstr, im->secs[i].sh.sh_name) : NULL;
		if (!im->secs[i].name)
			return error(im, "section headers",
				     "section %zu has no valid name", i);
	}
	/*
	 * Each section's relocations, found once (the first such section
	 * wins): vmlinux.o of a kernel built with function sections has
	 * tens of thousands of sections.
	 */
	for (i = im->nsecs; i-- > 1;) {
		const Elf64_Shdr *sh = &im->secs[i].sh;

		if (sh->sh_type == SHT_RELA && sh->sh_info < im->nsecs)
			im->secs[sh->sh_info].rela = &im->secs[i];
	}
	return 0;
}

static int read_symbols(struct image *im)
{
	const struct section *symtab = NULL, *strtab;
	size_t i;

	for (i = 1; i < im->nsecs && !symtab; i++)
		if (im->secs[i].sh.sh_type == SHT_SYMTAB)
			symtab = &im->secs[i];
	if (!symtab)
		return error(im, NULL, "no symbol table (stripped?)");
	if (symtab->sh.sh_entsize != sizeof(Elf64_Sym) ||
	    symtab->sh.sh_link >= im->nsecs ||
	    im->secs[symtab->sh.sh_link].sh.sh_type != SHT_STRTAB)
		return error(im, symtab->name, "not a valid symbol table");
	strtab = &im->secs[symtab->sh.sh_link];
	im->nsyms = symtab->sh.sh_size / sizeof(Elf64_Sym);
	im->syms = calloc(im->nsyms ? im->nsyms : 1, sizeof(*im->syms));
	if (!im->syms)
		return error(im, NULL, "out of memory");
	for (i = 0; i < im->nsyms; i++) {
		struct symbol *s = &im->syms[i];
		Elf64_Sym e;

		memcpy(&e, symtab->data + i * sizeof(e), sizeof(e));
		s->name = str_at(im, strtab, e.st_name);
		if (!s->name)
			return error(im, symtab->name,
				     "symbol %zu has no valid name", i);
		s->value = e.st_value;
		s->size = e.st_size;
		s->shndx = e.st_shndx;
		s->type = ELF64_ST_TYPE(e.st_info);
		s->bind = ELF64_ST_BIND(e.st_info);
	}
	return 0;
}

static bool is_code(const struct image *im, uint32_t shndx)
{
	const Elf64_Shdr *sh;

	if (shndx == SHN_UNDEF || shndx >= im->nsecs)
		return false;
	sh = &im->secs[shndx].sh;
	return (sh->sh_flags & SHF_EXECINSTR) && (sh->sh_flags & SHF_ALLOC) &&
	       sh->sh_type == SHT_PROGBITS;
}

/* Global names an address best, then weak, then local. */
static int bind_rank(const struct symbol *s)
{
	return s->bind == STB_GLOBAL ? 2 : s->bind == STB_WEAK;
}

/* Sorted through pointers: qsort() then moves 8 bytes, not a struct. */
static int func_cmp(const void *a, const void *b)
{
	const struct func *x = *(const struct func *const *)a;
	const struct func *y = *(const struct func *const *)b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* among aliases the widest, then the best-named, comes first */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return bind_rank(y->sym) - bind_rank(x->sym);
}

/*
 * The functions of the code sections, sorted, one per start address.
 * The body of an overridden weak function has no symbol left, so it is
 * in no function.
 */
static int index_functions(struct image *im)
{
	struct func *all, **order;
	size_t i, n = 0;

	all = calloc(im->nsyms ? im->nsyms : 1, sizeof(*all));
	order = calloc(im->nsyms ? im->nsyms : 1, sizeof(*order));
	im->funcs = calloc(im->nsyms ? im->nsyms : 1, sizeof(*im->funcs));
	if (!all || !order || !im->funcs) {
		free(all);
		free(order);
		return error(im, NULL, "out of memory");
	}
	for (i = 1; i < im->nsyms; i++) {
		const struct symbol *s = &im->syms[i];
		const struct section *sec;

		if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC) ||
		    !is_code(im, s->shndx))
			continue;
		sec = &im->secs[s->shndx];
		if (s->value - sec->sh.sh_addr > sec->sh.sh_size) {
			free(all);
			free(order);
			return error(im, s->name, "function lies outside its section %s",
				     sec->name);
		}
		all[n] = (struct func){ s->shndx, s->value, s->value + s->size, s };
		order[n] = &all[n];
		n++;
	}
	qsort(order, n, sizeof(*order), func_cmp);
	for (i = 0; i < n; i++)
		if (!im->nfuncs || order[i]->shndx != im->funcs[im->nfuncs - 1].shndx ||
		    order[i]->start != im->funcs[im->nfuncs - 1].start)
			im->funcs[im->nfuncs++] = *order[i];
	free(all);
	free(order);
	return 0;
}

int image_open(struct image *im, const char *path, bool writable)
{
	struct stat st;

	memset(im, 0, sizeof(*im));
	im->path = path;
	im->fd = open(path, writable ? O_RDWR : O_RDONLY);
	if (im->fd < 0)
		return error(im, NULL, "%s", strerror(errno));
	if (fstat(im->fd, &st) < 0) {
		error(im, NULL, "%s", strerror(errno));
		goto out_close;
	}
	im->size = st.st_size;
	if (!im->size) {
		error(im, NULL, "empty file");
		goto out_close;
	}
	/* nop_sites() writes through a shared mapping, in place */
	im->map = mmap(NULL, im->size, PROT_READ | (writable ? PROT_WRITE : 0),
		       writable ? MAP_SHARED : MAP_PRIVATE, im->fd, 0);
	if (im->map == MAP_FAILED) {
		im->map = NULL;
		error(im, NULL, "mmap: %s", strerror(errno));
		goto out_close;
	}
	if (read_header(im) < 0 || read_sections(im) < 0 ||
	    read_symbols(im) < 0 || index_functions(im) < 0)
		goto out_close;
	sections_classify(im);
	/* looked up once: riscv's link-time state is relative to it */
	im->caller = im->rel ? NULL : image_symbol(im, "ftrace_caller");
	return 0;

out_close:
	image_close(im);
	return -1;
}

void image_close(struct image *im)
{
	if (im->map)
		munmap(im->map, im->size);
	if (im->fd >= 0)
		close(im->fd);
	free(im->secs);
	free(im->syms);
	free(im->funcs);
	im->map = NULL;
	im->fd = -1;
	im->secs = NULL;
	im->syms = NULL;
	im->funcs = NULL;
}

struct section *image_section(const struct image *im, const char *name)
{
	size_t i;

	for (i = 1; i < im->nsecs; i++)
		if (!strcmp(im->secs[i].name, name))
			return &im->secs[i];
	return NULL;
}

/* The allocated section that holds address @addr of a linked image. */
struct section *image_section_at(const struct image *im, uint64_t addr)
{
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		const Elf64_Shdr *sh = &im->secs[i].sh;

		if ((sh->sh_flags & SHF_ALLOC) && sh->sh_size &&
		    addr - sh->sh_addr < sh->sh_size)
			return &im->secs[i];
	}
	return NULL;
}

/* @len bytes at @addr of section @shndx, or NULL if they are not all there. */
const uint8_t *image_bytes(const struct image *im, uint32_t shndx,
			   uint64_t addr, uint64_t len)
{
	const struct section *s;
	uint64_t off;

	if (shndx == SHN_UNDEF || shndx >= im->nsecs)
		return NULL;
	s = &im->secs[shndx];
	off = addr - s->sh.sh_addr;
	if (!s->data || off > s->sh.sh_size || len > s->sh.sh_size - off)
		return NULL;
	return s->data + off;
}

const struct symbol *image_symbol(const struct image *im, const char *name)
{
	size_t i;

	for (i = 1; i < im->nsyms; i++)
		if (im->syms[i].shndx != SHN_UNDEF &&
		    !strcmp(im->syms[i].name, name))
			return &im->syms[i];
	return NULL;
}

/* The SHT_RELA section that relocates section @shndx of @im, if any. */
struct section *image_relocs_for(const struct image *im, uint32_t shndx)
{
	return im->secs[shndx].rela;
}

/* The number of entries of SHT_RELA section @rsec, checked. */
int rela_count(const struct image *im, const struct section *rsec,
	       size_t *n)
{
	if (rsec->sh.sh_entsize != sizeof(Elf64_Rela) ||
	    rsec->sh.sh_size % sizeof(Elf64_Rela) || !rsec->data)
		return error(im, rsec->name, "not an array of Elf64_Rela");
	*n = rsec->sh.sh_size / sizeof(Elf64_Rela);
	return 0;
}

/* Entry @i of @rsec, read in place (rela_count() checked @i's range). */
void rela_get(const struct section *rsec, size_t i, struct reloc *r)
{
	Elf64_Rela e;

	memcpy(&e, rsec->data + i * sizeof(e), sizeof(e));
	r->offset = e.r_offset;
	r->type = ELF64_R_TYPE(e.r_info);
	r->sym = ELF64_R_SYM(e.r_info);
	r->addend = e.r_addend;
}

/*
 * The first function after (@shndx, @addr) in the order of im->funcs: it
 * may be in a later section, or im->funcs + im->nfuncs.
 */
const struct func *func_after(const struct image *im, uint32_t shndx,
			      uint64_t addr)
{
	size_t lo = 0, hi = im->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct func *f = &im->funcs[mid];

		if (f->shndx < shndx || (f->shndx == shndx && f->start < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return &im->funcs[lo];
}

/* The first function of section @shndx that starts at or after @addr. */
const struct func *func_from(const struct image *im, uint32_t shndx,
			     uint64_t addr)
{
	const struct func *f = func_after(im, shndx, addr);

	return f < im->funcs + im->nfuncs && f->shndx == shndx ? f : NULL;
}
