/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct image owns one ELF file, mapped read-only and read through
 * libelf: its header, sections, symbols, and relocation sections read
 * in place.  Every pass takes an image.
 */
#ifndef LINKPASS_IMAGE_H
#define LINKPASS_IMAGE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arch.h"
#include "compiler.h"
#include "relocs.h"

struct section {
	size_t idx;
	const char *name;
	GElf_Shdr sh;
	Elf_Scn *scn;
	const uint8_t *bytes;	/* loaded by image_section_bytes() */
	bool loaded;
	char unnamed[32];	/* the name in messages when sh_name gives "" */
};

struct symbol {
	const char *name;
	uint64_t value;
	uint64_t size;
	uint32_t shndx;		/* SHN_XINDEX already resolved */
	uint8_t type;		/* STT_* */
	uint8_t bind;		/* STB_* */
	uint8_t vis;		/* STV_* */
};

/* The raw bytes a symbol decoder reads, checked once at open. */
struct sym_input {
	const uint8_t *syms;
	const char *strs;
	uint64_t nstrs;
	const uint8_t *xndx;	/* SHT_SYMTAB_SHNDX entries, or NULL */
	size_t n;
	bool is64;		/* Elf64_Sym entries (else Elf32_Sym) */
};

enum image_kind {
	IMAGE_LINKED,	/* ET_EXEC or ET_DYN: scan, check, dump */
	IMAGE_OBJECT,	/* ET_REL: per-object mode */
	IMAGE_ANY,	/* either: check takes both */
};

struct image {
	const char *path;
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	uint64_t file_size;
	void *map;		/* the file, mapped read-only; or NULL */
	const struct arch *arch;
	struct section *secs;
	size_t nsecs;
	struct section *symtab;	/* NULL when the image has none */
	struct section *strtab;
	struct sym_input symin;	/* the symbol table in place */
	struct symbol *syms;	/* decoded: image_symbols() */
	bool syms_decoded;
	size_t nsyms;
	/* local STT_FUNC symbols: none means they were discarded (ld -x) */
	size_t nlocal_funcs;
	bool interposable;	/* a shared library's globals (dynamic.c) */
};

int image_open(struct image *im, const char *path, enum image_kind kind);
/* The same, the symbols left in place until image_symbols() (inplace.h). */
int image_open_lazy(struct image *im, const char *path, enum image_kind kind);
/* Decode every symbol into im->syms, checking each; once. */
int image_symbols(struct image *im);

/* Entry @i of a raw symbol table into *@s but the name; its st_name. */
static __always_inline uint32_t
sym_decode_raw(bool is64, const uint8_t *syms, size_t i, struct symbol *s)
{
	Elf64_Sym e;	/* GElf_Sym: a 32-bit entry is widened into it */
	Elf32_Sym e32;

	if (is64) {
		memcpy(&e, syms + i * sizeof(e), sizeof(e));
	} else {
		memcpy(&e32, syms + i * sizeof(e32), sizeof(e32));
		e = (Elf64_Sym){ e32.st_name, e32.st_info, e32.st_other,
				 e32.st_shndx, e32.st_value, e32.st_size };
	}
	s->value = e.st_value;
	s->size = e.st_size;
	s->shndx = e.st_shndx;
	s->type = ELF64_ST_TYPE(e.st_info);
	s->bind = ELF64_ST_BIND(e.st_info);
	s->vis = ELF64_ST_VISIBILITY(e.st_other);
	return e.st_name;
}

void image_close(struct image *im);

/* Section bytes, in the file; never NULL for size 0; NULL: reported. */
const uint8_t *image_section_bytes(struct image *im, struct section *s);
/* The same, with no message on NULL. */
const uint8_t *image_section_bytes_quiet(struct image *im, struct section *s);

struct section *image_find_section(struct image *im, const char *name);
/* @s's first address: sh_addr, or 0 in an object (section offsets). */
static inline uint64_t image_section_base(const struct image *im,
					  const struct section *s)
{
	return im->ehdr.e_type == ET_REL ? 0 : s->sh.sh_addr;
}

/* The allocated section whose address range holds @addr, or NULL. */
struct section *image_section_at(struct image *im, uint64_t addr);
/* A defined symbol by name (first match), or NULL. */
struct symbol *image_find_symbol(struct image *im, const char *name);

/* image_find_symbol() of @n names in one pass: out[i] if found[i]. */
int image_find_symbols(struct image *im, const char *const *names, size_t n,
		       struct symbol *out, bool *found);
/*
 * symfind.c: the same, reading the symbols in place unless they are
 * decoded (decoding them all only for an unusual symbol)
 */
int fast_find_symbols(struct image *im, const char *const *names, size_t n,
		      struct symbol *out, bool *found);

/*
 * dynamic.c: im->interposable from the dynamic section (-1 after an
 * error line); the value of symbol @sym of the dynamic symbol table of
 * relocation section @rs (a PIE's table entries against their anchor)
 */
int image_read_dynamic(struct image *im);
int dynsym_value(struct image *im, const struct section *rs, uint64_t sym,
		 uint64_t *value);

/*
 * release.c: after the symbol pass, the pages of the symbol names go
 * back, and those of the global symbols with them
 */
void image_release_names_pages(const struct image *im);
void image_release_globals_pages(const struct image *im);

/* The layout of relocation section @rsec of @im. */
static inline enum reloc_layout image_reloc_layout(const struct image *im,
						   const struct section *rsec)
{
	return reloc_layout_pick(im->ehdr.e_ident[EI_CLASS],
				 rsec->sh.sh_type == SHT_RELA);
}

/* The static relocation section of @target (kept by -q), or NULL. */
struct section *image_relocs_of(struct image *im,
				const struct section *target);
/* View a relocation section in place, checking its links and sizes. */
int image_relocs(struct image *im, struct section *rsec, struct relocs *r);

/* True when relocation section @s applies statically to code (-q). */
bool image_is_code_relocs(const struct image *im, const struct section *s);

#endif
