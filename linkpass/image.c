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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler.h"
#include "util.h"

/*
 * The file is mapped read-only and handed to libelf as memory, so
 * section bytes are the file's own clean pages (some are handed back:
 * release.c).  Sanitizer and fuzzing builds define
 * IMAGE_ELF_CMD=ELF_C_READ, so that libelf reads every section into a
 * buffer of its own size, where AddressSanitizer sees a read past it;
 * a file that cannot be mapped is read the same way.
 */
#ifndef IMAGE_ELF_CMD
#define IMAGE_MAP_FILE 1
#define IMAGE_ELF_CMD ELF_C_READ
#else
#define IMAGE_MAP_FILE 0
#endif

/*
 * The identification bytes, read before libelf sees the file: libelf
 * reports an empty, short or unknown-class file only as "not ELF", and
 * a file too short for its header as "invalid data".
 */
static int check_ident(struct image *im)
{
	unsigned char id[EI_NIDENT];
	const char *p = im->path;
	uint64_t need;
	ssize_t n;

	if (!im->file_size)
		return lp_error(p, "ELF header", "the file is empty");
	n = pread(im->fd, id, sizeof(id), 0);
	if (n < 0)
		return lp_error(p, "ELF header", "cannot read: %s",
				strerror(errno));
	if (n < SELFMAG || memcmp(id, ELFMAG, SELFMAG))
		return lp_error(p, "ELF header",
				"not an ELF file (no \\177ELF magic number)");
	if (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64 &&
	    n == EI_NIDENT)
		return lp_error(p, "ELF header", "unknown ELF class %u",
				id[EI_CLASS]);
	need = n == EI_NIDENT && id[EI_CLASS] == ELFCLASS32 ?
	       sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
	if (im->file_size < need)
		return lp_error(p, "ELF header",
				"the file is %llu bytes, shorter than an ELF header (%llu bytes)",
				(unsigned long long)im->file_size,
				(unsigned long long)need);
	return 0;
}

static int check_header(struct image *im, enum image_kind kind)
{
	const char *p = im->path;
	uint8_t cls, data;
	char names[64];
	bool linked;

	if (elf_kind(im->elf) != ELF_K_ELF)
		return lp_error(p, "ELF header", "not an ELF file");
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
				"unsupported machine %u with ELF class %u (supported: %s)",
				im->ehdr.e_machine, cls,
				arch_names(names, sizeof(names)));
	linked = im->ehdr.e_type == ET_EXEC || im->ehdr.e_type == ET_DYN;
	if (kind == IMAGE_ANY && !linked && im->ehdr.e_type != ET_REL)
		return lp_error(p, "ELF header",
				"e_type %u is neither a linked image (ET_EXEC, ET_DYN) nor a relocatable object (ET_REL)",
				im->ehdr.e_type);
	if (kind == IMAGE_LINKED && !linked)
		return lp_error(p, "ELF header",
				"e_type %u is not a linked image (ET_EXEC or ET_DYN)%s",
				im->ehdr.e_type,
				im->ehdr.e_type == ET_REL ?
				"; for an object file use 'linkpass obj'" : "");
	if (kind == IMAGE_OBJECT && im->ehdr.e_type != ET_REL)
		return lp_error(p, "ELF header",
				"e_type %u is not a relocatable object (ET_REL)",
				im->ehdr.e_type);
	/*
	 * libelf takes the section header size for granted and quietly
	 * sees no sections at all when their table does not fit in the
	 * file, so both are checked here.
	 */
	if (!im->ehdr.e_shoff)
		return lp_error(p, "ELF header",
				"no section header table (e_shoff is 0)");
	if (im->ehdr.e_shentsize != gelf_fsize(im->elf, ELF_T_SHDR, 1,
					       EV_CURRENT))
		return lp_error(p, "ELF header",
				"e_shentsize %u is not the size of a section header (%zu)",
				im->ehdr.e_shentsize,
				gelf_fsize(im->elf, ELF_T_SHDR, 1, EV_CURRENT));
	return 0;
}

static int cmp_offset(const void *a, const void *b)
{
	const struct section *x = *(const struct section *const *)a;
	const struct section *y = *(const struct section *const *)b;

	if (x->sh.sh_offset != y->sh.sh_offset)
		return x->sh.sh_offset < y->sh.sh_offset ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * No two sections may share file bytes, nor a section the bytes of the
 * section header table: a relocation section that overlaps the symbol
 * table or the code it relocates would be read as something it is not.
 * Linkers never lay sections out that way.
 */
static int check_overlaps(struct image *im)
{
	struct section **v = xcalloc(im->nsecs + 1, sizeof(*v));
	struct section sht = {
		.idx = im->nsecs,
		.name = "section header table",
		.sh.sh_offset = im->ehdr.e_shoff,
		.sh.sh_size = im->nsecs * im->ehdr.e_shentsize,
	};
	size_t i, n = 0;
	int ret = 0;

	v[n++] = &sht;
	for (i = 1; i < im->nsecs; i++)
		if (im->secs[i].sh.sh_type != SHT_NOBITS &&
		    im->secs[i].sh.sh_size)
			v[n++] = &im->secs[i];
	qsort(v, n, sizeof(*v), cmp_offset);
	for (i = 1; i < n; i++) {
		const GElf_Shdr *a = &v[i - 1]->sh, *b = &v[i]->sh;

		if (b->sh_offset >= a->sh_offset + a->sh_size)
			continue;
		ret = lp_error(im->path, v[i]->name,
			       "file bytes 0x%llx..0x%llx overlap %s (0x%llx..0x%llx)",
			       (unsigned long long)b->sh_offset,
			       (unsigned long long)(b->sh_offset + b->sh_size),
			       v[i - 1]->name,
			       (unsigned long long)a->sh_offset,
			       (unsigned long long)(a->sh_offset + a->sh_size));
		break;
	}
	free(v);
	return ret;
}

/* libelf counts 0 sections when their table does not fit: check it. */
static int count_sections(struct image *im)
{
	const char *p = im->path;
	size_t entsize = im->ehdr.e_shentsize;

	if (elf_getshdrnum(im->elf, &im->nsecs) < 0)
		return lp_elf_error(p, "section headers", "cannot count");
	if (im->nsecs && im->ehdr.e_shoff <= im->file_size &&
	    im->nsecs <= (im->file_size - im->ehdr.e_shoff) / entsize)
		return 0;
	if (!im->ehdr.e_shnum)
		return lp_error(p, "section header table",
				"the extended section count at offset 0x%llx does not fit in the file (0x%llx bytes)",
				(unsigned long long)im->ehdr.e_shoff,
				(unsigned long long)im->file_size);
	return lp_error(p, "section header table",
			"%u entries at offset 0x%llx do not fit in the file (0x%llx bytes)",
			im->ehdr.e_shnum, (unsigned long long)im->ehdr.e_shoff,
			(unsigned long long)im->file_size);
}

/* The section name table: in range, a string table, inside the file. */
static int find_name_table(struct image *im, size_t *shstrndx)
{
	const char *p = im->path;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(im->elf, shstrndx) < 0)
		return lp_elf_error(p, "section headers",
				    "cannot find the section name table");
	if (*shstrndx == SHN_UNDEF || *shstrndx >= im->nsecs)
		return lp_error(p, "ELF header",
				"e_shstrndx %zu out of range (%zu sections)",
				*shstrndx, im->nsecs);
	if (!gelf_getshdr(elf_getscn(im->elf, *shstrndx), &sh))
		return lp_elf_error(p, "section name table", "cannot read");
	if (sh.sh_type != SHT_STRTAB)
		return lp_error(p, "ELF header",
				"e_shstrndx %zu names a section of type %u, not a string table",
				*shstrndx, sh.sh_type);
	/* checked here, or every name would be reported out of range */
	if (sh.sh_offset > im->file_size ||
	    sh.sh_size > im->file_size - sh.sh_offset)
		return lp_error(p, "section name table",
				"section %zu (offset 0x%llx, size 0x%llx) extends past the end of the file (0x%llx bytes)",
				*shstrndx, (unsigned long long)sh.sh_offset,
				(unsigned long long)sh.sh_size,
				(unsigned long long)im->file_size);
	return 0;
}

/* Section @i: its header, its name, its type and extent checked. */
static int read_section(struct image *im, size_t i, size_t shstrndx)
{
	struct section *s = &im->secs[i];
	const char *p = im->path;
	char place[64];

	snprintf(place, sizeof(place), "section header %zu", i);
	s->idx = i;
	s->scn = elf_getscn(im->elf, i);
	if (!s->scn || !gelf_getshdr(s->scn, &s->sh))
		return lp_elf_error(p, place, "cannot read");
	if (i == 0) {
		s->name = "";
		return 0;
	}
	s->name = elf_strptr(im->elf, shstrndx, s->sh.sh_name);
	if (!s->name)
		return lp_error(p, place, "sh_name %u out of range", s->sh.sh_name);
	if (!s->name[0]) {
		/* linkers name every section; keep messages readable */
		snprintf(s->unnamed, sizeof(s->unnamed), "[section %zu]", i);
		s->name = s->unnamed;
	}
	/* types between the generic ones and SHT_LOOS are reserved */
	if (s->sh.sh_type >= SHT_NUM && s->sh.sh_type < SHT_LOOS)
		return lp_error(p, s->name, "sh_type 0x%x is reserved",
				s->sh.sh_type);
	if (s->sh.sh_type != SHT_NOBITS &&
	    (s->sh.sh_offset > im->file_size ||
	     s->sh.sh_size > im->file_size - s->sh.sh_offset))
		return lp_error(p, s->name,
				"section (offset 0x%llx, size 0x%llx) extends past the end of the file (0x%llx bytes)",
				(unsigned long long)s->sh.sh_offset,
				(unsigned long long)s->sh.sh_size,
				(unsigned long long)im->file_size);
	return 0;
}

static int read_sections(struct image *im)
{
	size_t shstrndx, i;

	if (count_sections(im) < 0 || find_name_table(im, &shstrndx) < 0)
		return -1;
	im->secs = xcalloc(im->nsecs, sizeof(*im->secs));
	for (i = 0; i < im->nsecs; i++)
		if (read_section(im, i, shstrndx) < 0)
			return -1;
	return check_overlaps(im);
}

/* image_section_bytes(), reporting a failure only when @report. */
static const uint8_t *section_bytes(struct image *im, struct section *s,
				    bool report)
{
	static const uint8_t no_bytes[1];	/* what a size-0 section holds */
	Elf_Data *d;

	if (s->loaded)
		return s->bytes;
	if (s->sh.sh_size == 0) {
		s->loaded = true;
		s->bytes = no_bytes;
		return s->bytes;
	}
	if (s->sh.sh_type == SHT_NOBITS) {
		if (report)
			lp_error(im->path, s->name,
				 "has no bytes in the file (SHT_NOBITS, size 0x%llx)",
				 (unsigned long long)s->sh.sh_size);
		return NULL;
	}
	if (s->sh.sh_flags & SHF_COMPRESSED) {
		if (report)
			lp_error(im->path, s->name,
				 "section is compressed (SHF_COMPRESSED); linkpass needs it uncompressed");
		return NULL;
	}
	/* the file's bytes, no conversion copy: callers use memcpy */
	d = elf_rawdata(s->scn, NULL);
	if (!d || !d->d_buf || d->d_size != s->sh.sh_size) {
		if (report)
			lp_elf_error(im->path, s->name,
				     "cannot read section data");
		return NULL;
	}
	s->bytes = d->d_buf;
	s->loaded = true;
	return s->bytes;
}

const uint8_t *image_section_bytes(struct image *im, struct section *s)
{
	return section_bytes(im, s, true);
}

const uint8_t *image_section_bytes_quiet(struct image *im, struct section *s)
{
	return section_bytes(im, s, false);
}

/* The one symbol table: its header, links and string table checked. */
static int read_symtab(struct image *im)
{
	struct section *st, *shndx_sec = NULL;
	struct sym_input *in = &im->symin;
	const char *p = im->path;
	size_t i, entsize;

	for (i = 1; i < im->nsecs; i++) {
		if (im->secs[i].sh.sh_type != SHT_SYMTAB)
			continue;
		if (im->symtab)
			return lp_error(p, im->secs[i].name,
					"more than one symbol table");
		im->symtab = &im->secs[i];
	}
	st = im->symtab;
	if (!st)
		return 0;
	entsize = gelf_fsize(im->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (st->sh.sh_entsize != entsize)
		return lp_error(p, st->name, "sh_entsize %llu, expected %zu",
				(unsigned long long)st->sh.sh_entsize, entsize);
	if (st->sh.sh_size % entsize)
		return lp_error(p, st->name,
				"size 0x%llx is not a multiple of the entry size",
				(unsigned long long)st->sh.sh_size);
	if (st->sh.sh_link == 0 || st->sh.sh_link >= im->nsecs ||
	    im->secs[st->sh.sh_link].sh.sh_type != SHT_STRTAB)
		return lp_error(p, st->name, "sh_link %u is not a string table",
				st->sh.sh_link);
	im->strtab = &im->secs[st->sh.sh_link];
	if (im->strtab->sh.sh_flags & SHF_COMPRESSED ||
	    st->sh.sh_flags & SHF_COMPRESSED)
		return lp_error(p, st->name,
				"symbol table is compressed (SHF_COMPRESSED)");
	for (i = 1; i < im->nsecs; i++)
		if (im->secs[i].sh.sh_type == SHT_SYMTAB_SHNDX &&
		    im->secs[i].sh.sh_link == st->idx)
			shndx_sec = &im->secs[i];
	in->is64 = entsize == sizeof(Elf64_Sym);
	in->n = st->sh.sh_size / entsize;
	in->syms = image_section_bytes(im, st);
	in->strs = (const char *)image_section_bytes(im, im->strtab);
	if (!in->syms || !in->strs)
		return -1;
	/* a final NUL, checked once, ends every in-range st_name */
	in->nstrs = im->strtab->sh.sh_size;
	if (!in->nstrs || in->strs[in->nstrs - 1])
		return lp_error(p, im->strtab->name,
				"string table is empty or does not end in a NUL byte");
	if (!shndx_sec)
		return 0;
	if (shndx_sec->sh.sh_size < in->n * sizeof(Elf32_Word))
		return lp_error(p, shndx_sec->name,
				"holds fewer entries than %s (%zu)", st->name, in->n);
	in->xndx = image_section_bytes(im, shndx_sec);
	return in->xndx ? 0 : -1;
}

/* Check decoded symbol @i, whose st_name is @name, and name it. */
static __always_inline int check_symbol(struct image *im,
					const struct sym_input *in, size_t i,
					uint32_t name)
{
	struct symbol *s = &im->syms[i];
	char place[64];

	if (name < in->nstrs && s->shndx < im->nsecs) {
		s->name = in->strs + name;	/* the common case */
		return 0;
	}
	snprintf(place, sizeof(place), "%s entry %zu", im->symtab->name, i);
	if (name >= in->nstrs)
		return lp_error(im->path, place,
				"st_name %u out of range (string table of %llu bytes)",
				name, (unsigned long long)in->nstrs);
	s->name = in->strs + name;
	if (s->shndx == SHN_XINDEX) {
		Elf32_Word x = 0;

		if (in->xndx)
			memcpy(&x, in->xndx + i * sizeof(x), sizeof(x));
		s->shndx = x;
	}
	if (s->shndx >= im->nsecs && s->shndx < SHN_LORESERVE)
		return lp_error(im->path, place,
				"symbol '%s' has section index %u out of range (%zu sections)",
				s->name, s->shndx, im->nsecs);
	return 0;
}

/*
 * Decode every symbol from the mapped bytes, one loop per ELF class (a
 * constant in each caller): a per-symbol libelf call was a quarter of
 * a kernel's scan (callgrind).
 */
static __always_inline int
decode_symbols(uint8_t cls, struct image *im, const struct sym_input *in)
{
	size_t i;

	for (i = 0; i < in->n; i++) {
		struct symbol *s = &im->syms[i];
		uint32_t name;

		name = sym_decode_raw(cls == ELFCLASS64, in->syms, i, s);
		if (check_symbol(im, in, i, name) < 0)
			return -1;
		im->nlocal_funcs += s->type == STT_FUNC && s->bind == STB_LOCAL;
	}
	return 0;
}

int image_symbols(struct image *im)
{
	const struct sym_input *in = &im->symin;

	if (im->syms_decoded || !im->symtab)
		return 0;
	/* every field of every entry is set by the decoder */
	im->syms = xmalloc((in->n ? in->n : 1) * sizeof(*im->syms));
	im->nsyms = in->n;
	im->nlocal_funcs = 0;
	if ((in->is64 ? decode_symbols(ELFCLASS64, im, in) :
			decode_symbols(ELFCLASS32, im, in)) < 0)
		return -1;
	im->syms_decoded = true;
	return 0;
}

/* libelf's view of the file: the mapping if there is one (see the top). */
static Elf *open_elf(struct image *im)
{
	void *map;

	if (IMAGE_MAP_FILE && im->file_size <= SIZE_MAX) {
		map = mmap(NULL, (size_t)im->file_size, PROT_READ,
			   MAP_PRIVATE, im->fd, 0);
		if (map != MAP_FAILED) {
			im->map = map;
			return elf_memory(map, (size_t)im->file_size);
		}
	}
	return elf_begin(im->fd, IMAGE_ELF_CMD, NULL);
}

int image_open_lazy(struct image *im, const char *path,
		    enum image_kind kind)
{
	struct stat st;

	memset(im, 0, sizeof(*im));
	im->path = path;
	im->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return lp_elf_error(path, "libelf", "initialisation failed");
	im->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (im->fd < 0)
		return lp_error(path, "open", "%s", strerror(errno));
	if (fstat(im->fd, &st) < 0)
		return lp_error(path, "stat", "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return lp_error(path, "open", "%s, not a regular file",
				S_ISDIR(st.st_mode) ? "a directory" :
				"a special file");
	im->file_size = (uint64_t)st.st_size;
	if (check_ident(im) < 0)
		return -1;
	im->elf = open_elf(im);
	if (!im->elf)
		return lp_elf_error(path, "ELF header", "cannot read");
	if (check_header(im, kind) < 0 || read_sections(im) < 0 ||
	    read_symtab(im) < 0)
		return -1;
	im->nsyms = im->symin.n;
	return 0;
}

int image_open(struct image *im, const char *path, enum image_kind kind)
{
	if (image_open_lazy(im, path, kind) < 0)
		return -1;
	return image_symbols(im);
}

void image_close(struct image *im)
{
	free(im->syms);
	free(im->secs);
	if (im->elf)
		elf_end(im->elf);
	if (im->map)
		munmap(im->map, (size_t)im->file_size);
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
		if (im->syms[i].name[0] == name[0] &&
		    im->syms[i].shndx != SHN_UNDEF &&
		    !strcmp(im->syms[i].name, name))
			return &im->syms[i];
	return NULL;
}

int image_find_symbols(struct image *im, const char *const *names, size_t n,
		       struct symbol *out, bool *found)
{
	const struct symbol *s;
	size_t j;

	if (image_symbols(im) < 0)
		return -1;
	for (j = 0; j < n; j++) {
		s = image_find_symbol(im, names[j]);
		found[j] = s;
		if (s)
			out[j] = *s;
	}
	return 0;
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

struct section *image_relocs_of(struct image *im,
				const struct section *target)
{
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		struct section *r = &im->secs[i];

		if ((r->sh.sh_type == SHT_RELA || r->sh.sh_type == SHT_REL) &&
		    r->sh.sh_info == target->idx &&
		    (im->ehdr.e_type == ET_REL || !(r->sh.sh_flags & SHF_ALLOC)))
			return r;
	}
	return NULL;
}

int image_relocs(struct image *im, struct section *rsec, struct relocs *r)
{
	enum reloc_layout l = image_reloc_layout(im, rsec);
	size_t entsize = reloc_entsize(l);
	const char *p = im->path;

	memset(r, 0, sizeof(*r));
	r->rsec = rsec;
	r->layout = l;
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
